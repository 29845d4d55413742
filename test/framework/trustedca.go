package framework

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
)

const (
	// TrustedCABundleInjectLabel marks a ConfigMap that wants the cluster's trusted CA bundle.
	TrustedCABundleInjectLabel = "config.openshift.io/inject-trusted-cabundle"
	// TrustedCABundleKey is the ConfigMap data key the bundle is written to.
	TrustedCABundleKey = "ca-bundle.crt"
)

// TrustedCAInjector stands in for the part of OpenShift's cluster network operator that fills
// "trusted CA bundle" ConfigMaps.
//
// Watches: ConfigMaps in all namespaces labelled config.openshift.io/inject-trusted-cabundle=true
// (the label selector is applied server-side, so other ConfigMaps are never seen).
//
// Writes: the data key ca-bundle.crt of each such ConfigMap, set to the bundle (the one it was started
// with, or the last Rotate's) whenever the ConfigMap appears or changes and the key differs from it, and
// at Rotate; all other keys are kept.
// Like the real injector it simply wins: if something keeps resetting the key, the two will fight.
type TrustedCAInjector struct {
	kube     kubernetes.Interface
	bundle   atomic.Pointer[string]
	injected atomic.Int64
}

// Rotate makes bundlePEM the bundle from now on and writes it into every labelled ConfigMap, as the
// network operator does when the cluster's trusted CAs change.
func (in *TrustedCAInjector) Rotate(ctx context.Context, bundlePEM []byte) error {
	bundle := string(bundlePEM)
	in.bundle.Store(&bundle)
	cms, err := in.kube.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, metav1.ListOptions{LabelSelector: TrustedCABundleInjectLabel + "=true"})
	if err != nil {
		return err
	}
	for i := range cms.Items {
		in.handle(ctx, &cms.Items[i])
	}
	return nil
}

// StartTrustedCAInjector starts the injector; it runs until ctx ends. It returns once its
// ConfigMap cache has synced, so ConfigMaps that already exist are being handled by then.
func StartTrustedCAInjector(ctx context.Context, kube kubernetes.Interface, bundlePEM []byte) (*TrustedCAInjector, error) {
	in := &TrustedCAInjector{kube: kube}
	bundle := string(bundlePEM)
	in.bundle.Store(&bundle)
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 30*time.Second,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = TrustedCABundleInjectLabel + "=true"
		}))
	informer := factory.Core().V1().ConfigMaps().Informer()
	// The resync re-delivers every ConfigMap as an update, which retries writes that failed for
	// reasons other than a conflict.
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { in.handle(ctx, obj) },
		UpdateFunc: func(_, obj interface{}) { in.handle(ctx, obj) },
	}); err != nil {
		return nil, err
	}
	factory.Start(ctx.Done())
	go func() { <-ctx.Done(); factory.Shutdown() }()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("trusted CA injector: %v cache did not sync: %w", typ, ctx.Err())
		}
	}
	return in, nil
}

// Injected returns how many times the injector has written the bundle into a ConfigMap.
func (in *TrustedCAInjector) Injected() int { return int(in.injected.Load()) }

func (in *TrustedCAInjector) handle(ctx context.Context, obj interface{}) {
	bundle := *in.bundle.Load()
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Data[TrustedCABundleKey] == bundle {
		return
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := in.kube.CoreV1().ConfigMaps(cm.Namespace).Get(ctx, cm.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		// Re-check on the fresh copy: it may have been fixed or unlabelled meanwhile.
		if cur.Labels[TrustedCABundleInjectLabel] != "true" || cur.Data[TrustedCABundleKey] == bundle {
			return nil
		}
		if cur.Data == nil {
			cur.Data = map[string]string{}
		}
		cur.Data[TrustedCABundleKey] = bundle
		if _, err := in.kube.CoreV1().ConfigMaps(cur.Namespace).Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
			return err
		}
		in.injected.Add(1)
		return nil
	})
	if err != nil && !apierrors.IsNotFound(err) && ctx.Err() == nil {
		// Left for the next resync; a test that waits on the ConfigMap will see the delay.
		fmt.Fprintf(os.Stderr, "trusted CA injector: %s/%s: %v\n", cm.Namespace, cm.Name, err)
	}
}
