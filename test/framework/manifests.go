package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
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
	dc, err := discovery.NewDiscoveryClientForConfig(cp.Config)
	if err != nil {
		return err
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	for _, obj := range objs {
		if skip[obj.GetKind()] {
			continue
		}
		gvk := obj.GroupVersionKind()
		// kube-system appears shortly after kube-apiserver starts: retry what is not there yet.
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				mapper.Reset()
				return false, nil
			}
			client := cp.Dynamic.Resource(mapping.Resource)
			var ri interface {
				Apply(context.Context, string, *unstructured.Unstructured, metav1.ApplyOptions, ...string) (*unstructured.Unstructured, error)
			} = client
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				ri = client.Namespace(obj.GetNamespace())
			}
			_, err = ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "cluster-version-operator", Force: true})
			return err == nil, nil
		})
		if err != nil {
			return fmt.Errorf("applying %s %s/%s from manifests/: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// OperatorConfig returns a client config that authenticates as the operator's ServiceAccount with a
// token from the TokenRequest API, as the kubelet would mount into its pod.
func (cp *ControlPlane) OperatorConfig(ctx context.Context) (*rest.Config, error) {
	tr, err := cp.Kube.CoreV1().ServiceAccounts(names.OperatorNamespace).CreateToken(ctx, OperatorServiceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](24 * 3600)}},
		metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token for ServiceAccount %s/%s: %w", names.OperatorNamespace, OperatorServiceAccount, err)
	}
	cfg := rest.AnonymousClientConfig(cp.Config)
	cfg.BearerToken = tr.Status.Token
	cfg.QPS, cfg.Burst = 0, 0
	return cfg, nil
}

// WriteOperatorKubeconfig writes a kubeconfig for the operator's ServiceAccount into dir and returns
// its path, for the operator binary.
func (cp *ControlPlane) WriteOperatorKubeconfig(ctx context.Context, dir string) (string, error) {
	cfg, err := cp.OperatorConfig(ctx)
	if err != nil {
		return "", err
	}
	ca := cfg.TLSClientConfig.CAData
	if len(ca) == 0 && cfg.TLSClientConfig.CAFile != "" {
		if ca, err = os.ReadFile(cfg.TLSClientConfig.CAFile); err != nil {
			return "", err
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["world"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos["operator"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["operator"] = &clientcmdapi.Context{Cluster: "world", AuthInfo: "operator"}
	kc.CurrentContext = "operator"
	path := filepath.Join(dir, "operator.kubeconfig")
	return path, clientcmd.WriteToFile(*kc, path)
}
