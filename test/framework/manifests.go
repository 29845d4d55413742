package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// OperatorServiceAccount is the identity the operator runs as, from manifests/.
const OperatorServiceAccount = "manila-csi-driver-operator"

// NotApplied are the manifest kinds the test world does not apply as they are: the ClusterCSIDriver,
// which each test creates in the state it needs, and the CredentialsRequest, which the
// cloud-credential-operator would answer; the world writes its Secret instead (WriteCloudCredentials).
var NotApplied = map[string]bool{"ClusterCSIDriver": true, "CredentialsRequest": true}

// ApplyManifests applies manifests/ in file order, as the cluster-version operator does, except the
// kinds skip names.
func (cp *ControlPlane) ApplyManifests(ctx context.Context, skip map[string]bool) error {
	objs, err := manifests.Objects()
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if skip[obj.GetKind()] {
			continue
		}
		if err := cp.applyObject(ctx, obj, "cluster-version-operator"); err != nil {
			return fmt.Errorf("applying %s %s/%s from manifests/: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// applyObject applies obj server-side as fieldManager, forcing conflicts, and retries for a while
// what cannot be applied yet.
func (cp *ControlPlane) applyObject(ctx context.Context, obj *unstructured.Unstructured, fieldManager string) error {
	gvk := obj.GroupVersionKind()
	var last error
	// kube-system appears shortly after kube-apiserver starts: retry what is not there yet.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		mapping, err := cp.RESTMapping(gvk)
		if err != nil {
			last = err
			return false, nil
		}
		client := cp.Dynamic.Resource(mapping.Resource)
		var ri interface {
			Apply(context.Context, string, *unstructured.Unstructured, metav1.ApplyOptions, ...string) (*unstructured.Unstructured, error)
		} = client
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = client.Namespace(obj.GetNamespace())
		}
		_, last = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		return last == nil, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("%w (last: %v)", err, last)
	}
	return err
}

// OperatorConfig returns a client config that authenticates as the operator's ServiceAccount with a
// token from the TokenRequest API, as the kubelet would mount into its pod.
func (cp *ControlPlane) OperatorConfig(ctx context.Context) (*rest.Config, error) {
	return cp.ServiceAccountConfig(ctx, names.OperatorNamespace, OperatorServiceAccount)
}

// ServiceAccountConfig returns a client config that authenticates as the ServiceAccount with a token
// from the TokenRequest API, as the kubelet would mount into a pod that runs as it.
func (cp *ControlPlane) ServiceAccountConfig(ctx context.Context, namespace, name string) (*rest.Config, error) {
	tr, err := cp.Kube.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}},
		metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for ServiceAccount %s/%s: %w", namespace, name, err)
	}
	cfg := rest.AnonymousClientConfig(cp.Config)
	cfg.BearerToken = tr.Status.Token
	cfg.QPS, cfg.Burst = 0, 0
	return cfg, nil
}

// WriteOperatorKubeconfig writes a kubeconfig for the operator's ServiceAccount into dir and returns
// its path, for the operator binary.
func (cp *ControlPlane) WriteOperatorKubeconfig(ctx context.Context, dir string) (string, error) {
	return cp.WriteServiceAccountKubeconfig(ctx, names.OperatorNamespace, OperatorServiceAccount, filepath.Join(dir, "operator.kubeconfig"))
}

// WriteServiceAccountKubeconfig writes a kubeconfig for the ServiceAccount at path, for a process
// that would run in a pod as that account.
func (cp *ControlPlane) WriteServiceAccountKubeconfig(ctx context.Context, namespace, name, path string) (string, error) {
	kc, err := cp.ServiceAccountKubeconfig(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	// As clientcmd.WriteToFile would: the directory made if missing, the file for its owner only.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, kc, 0o600)
}

// ServiceAccountKubeconfig returns a kubeconfig for the ServiceAccount with a fresh token from the
// TokenRequest API; each call has a new token.
func (cp *ControlPlane) ServiceAccountKubeconfig(ctx context.Context, namespace, name string) ([]byte, error) {
	cfg, err := cp.ServiceAccountConfig(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	ca := cfg.TLSClientConfig.CAData
	if len(ca) == 0 && cfg.TLSClientConfig.CAFile != "" {
		if ca, err = os.ReadFile(cfg.TLSClientConfig.CAFile); err != nil {
			return nil, err
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["world"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: "world", AuthInfo: name}
	kc.CurrentContext = name
	return clientcmd.Write(*kc)
}

// OperatorPod creates what the kubelet and the Deployment controller would have made for the
// operator's Deployment from manifests/: a ReplicaSet it controls and a Pod that ReplicaSet controls.
// It returns the Pod's name, the POD_NAME by which the operator finds its Deployment for events.
func (cp *ControlPlane) OperatorPod(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	d, err := cp.Kube.AppsV1().Deployments(names.OperatorNamespace).Get(ctx, names.OperatorName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the operator Deployment from manifests/: %v", err)
	}
	owner := func(kind, name string, uid types.UID) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: uid, Controller: ptr.To(true)}}
	}
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%100000)
	rs, err := cp.Kube.AppsV1().ReplicaSets(names.OperatorNamespace).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: d.Name + "-" + suffix, Namespace: names.OperatorNamespace,
			OwnerReferences: owner("Deployment", d.Name, d.UID)},
		Spec: appsv1.ReplicaSetSpec{Selector: d.Spec.Selector, Template: d.Spec.Template},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := cp.Kube.CoreV1().Pods(names.OperatorNamespace).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: rs.Name + "-x", Namespace: names.OperatorNamespace,
			Labels: d.Spec.Template.Labels, OwnerReferences: owner("ReplicaSet", rs.Name, rs.UID)},
		Spec: d.Spec.Template.Spec,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cp.Kube.CoreV1().Pods(names.OperatorNamespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{})
		_ = cp.Kube.AppsV1().ReplicaSets(names.OperatorNamespace).Delete(context.Background(), rs.Name, metav1.DeleteOptions{})
	})
	return pod.Name
}

// ProxyEnv is what the cluster-version operator injects into a container named by a Deployment's
// config.openshift.io/inject-proxy annotation: HTTP_PROXY, HTTPS_PROXY and NO_PROXY from the
// status of Proxy/cluster, each only when set.
func (cp *ControlPlane) ProxyEnv(ctx context.Context) ([]string, error) {
	p, err := cp.ConfigV1.ConfigV1().Proxies().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var env []string
	for name, value := range map[string]string{"HTTP_PROXY": p.Status.HTTPProxy, "HTTPS_PROXY": p.Status.HTTPSProxy, "NO_PROXY": p.Status.NoProxy} {
		if value != "" {
			env = append(env, name+"="+value)
		}
	}
	return env, nil
}
