package framework

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const (
	// ServingCertSecretAnnotation on a Service names the Secret to put its serving certificate in.
	ServingCertSecretAnnotation = "service.beta.openshift.io/serving-cert-secret-name"
	// OriginatingServiceNameAnnotation on a serving-cert Secret names the Service it was issued for.
	OriginatingServiceNameAnnotation = "service.beta.openshift.io/originating-service-name"
	// OriginatingServiceUIDAnnotation on a serving-cert Secret holds that Service's UID.
	OriginatingServiceUIDAnnotation = "service.beta.openshift.io/originating-service-uid"
)

// ServiceCA stands in for OpenShift's service-ca operator (its serving-cert signer).
//
// Watches: Services in all namespaces, and Secrets in all namespaces (to notice deleted
// serving-cert Secrets).
//
// Writes: for every Service annotated service.beta.openshift.io/serving-cert-secret-name: <name>,
// creates Secret <name> in the Service's namespace when it is missing (also after it was
// deleted), of type kubernetes.io/tls with tls.crt (leaf certificate then CAPEM) and tls.key
// (PKCS#8 ECDSA key), the leaf valid for <svc>.<ns>.svc and <svc>.<ns>.svc.cluster.local and
// signed by its own CA. It never updates or deletes a Secret that exists, whoever created it.
// Failed creates (e.g. the namespace is gone or terminating) are retried with backoff.
type ServiceCA struct {
	// CAPEM is the PEM certificate of the CA that signs every serving certificate.
	CAPEM []byte

	caCert   *x509.Certificate
	caKey    *ecdsa.PrivateKey
	kube     kubernetes.Interface
	services corelisters.ServiceLister
	secrets  corelisters.SecretLister
	queue    workqueue.TypedRateLimitingInterface[string] // "namespace/service"
	issued   atomic.Int64
}

// StartServiceCA generates the CA and starts the signer; it runs until ctx ends. It returns once
// its caches have synced, so Services that already exist are queued by then.
func StartServiceCA(ctx context.Context, kube kubernetes.Interface) (*ServiceCA, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: "manila-test-service-ca"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}

	factory := informers.NewSharedInformerFactory(kube, 30*time.Second)
	svcInformer := factory.Core().V1().Services()
	secretInformer := factory.Core().V1().Secrets()
	s := &ServiceCA{
		CAPEM:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		caCert:   caCert,
		caKey:    caKey,
		kube:     kube,
		services: svcInformer.Lister(),
		secrets:  secretInformer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "test-service-ca"}),
	}
	// Every add, change and 30 s resync of an annotated Service queues it, so a missing Secret is
	// noticed at the latest on the next resync.
	enqueueService := func(obj interface{}) {
		if svc, ok := obj.(*corev1.Service); ok && svc.Annotations[ServingCertSecretAnnotation] != "" {
			s.queue.Add(svc.Namespace + "/" + svc.Name)
		}
	}
	if _, err := svcInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueueService,
		UpdateFunc: func(_, obj interface{}) { enqueueService(obj) },
	}); err != nil {
		return nil, err
	}
	// A deleted serving-cert Secret re-queues its Service at once.
	if _, err := secretInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(obj interface{}) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if sec, ok := obj.(*corev1.Secret); ok && sec.Annotations[OriginatingServiceNameAnnotation] != "" {
				s.queue.Add(sec.Namespace + "/" + sec.Annotations[OriginatingServiceNameAnnotation])
			}
		},
	}); err != nil {
		return nil, err
	}

	go func() { <-ctx.Done(); s.queue.ShutDown(); factory.Shutdown() }()
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("service CA: %v cache did not sync: %w", typ, ctx.Err())
		}
	}
	go s.run(ctx)
	return s, nil
}

// Issued returns how many serving-cert Secrets the signer has created.
func (s *ServiceCA) Issued() int { return int(s.issued.Load()) }

func (s *ServiceCA) run(ctx context.Context) {
	for {
		key, shutdown := s.queue.Get()
		if shutdown {
			return
		}
		if err := s.sync(ctx, key); err != nil {
			if ctx.Err() == nil && s.queue.NumRequeues(key) >= 5 {
				fmt.Fprintf(os.Stderr, "service CA: %s (retrying): %v\n", key, err)
			}
			s.queue.AddRateLimited(key)
		} else {
			s.queue.Forget(key)
		}
		s.queue.Done(key)
	}
}

// sync makes sure the Service named by key ("namespace/name") has its serving-cert Secret.
func (s *ServiceCA) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil // cannot happen: we build the keys
	}
	svc, err := s.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	secretName := svc.Annotations[ServingCertSecretAnnotation]
	if secretName == "" {
		return nil
	}
	if _, err := s.secrets.Secrets(ns).Get(secretName); err == nil {
		return nil
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	certPEM, keyPEM, err := s.issue(svc)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: ns, Annotations: map[string]string{
			OriginatingServiceNameAnnotation: svc.Name,
			OriginatingServiceUIDAnnotation:  string(svc.UID),
		}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM},
	}
	_, err = s.kube.CoreV1().Secrets(ns).Create(ctx, secret, metav1.CreateOptions{})
	switch {
	case err == nil:
		s.issued.Add(1)
		return nil
	case apierrors.IsAlreadyExists(err):
		return nil // our cache was behind; an existing Secret is left alone
	default:
		return err
	}
}

// issue returns a serving certificate chain (leaf, then CA) and its PKCS#8 key, both PEM.
func (s *ServiceCA) issue(svc *corev1.Service) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	dnsName := svc.Name + "." + svc.Namespace + ".svc"
	now := time.Now()
	notAfter := now.Add(24 * time.Hour)
	if notAfter.After(s.caCert.NotAfter) {
		notAfter = s.caCert.NotAfter
	}
	tmpl := &x509.Certificate{SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: dnsName},
		NotBefore: now.Add(-time.Minute), NotAfter: notAfter,
		DNSNames:    []string{dnsName, dnsName + ".cluster.local"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.caCert, &key.PublicKey, s.caKey)
	if err != nil {
		return nil, nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	certPEM = append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), s.CAPEM...)
	return certPEM, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}), nil
}

// randomSerial returns a random positive 128-bit certificate serial number.
func randomSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n.Add(n, big.NewInt(1))
}
