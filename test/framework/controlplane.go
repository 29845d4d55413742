package framework

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// ControlPlane is a running kube-apiserver + etcd with the CRDs and cluster objects an OpenShift
// cluster would have for the operator.
type ControlPlane struct {
	StateDir   string
	Kubeconfig string
	Config     *rest.Config
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface
	Operator   operatorclient.Interface
	ConfigV1   configclient.Interface

	mapperOnce sync.Once
	mapper     *restmapper.DeferredDiscoveryRESTMapper
	// baseControllers is the kube-controller-manager every pod of the cluster relies on.
	baseControllers *Process
}

// RESTMapping maps a kind to its resource through kube-apiserver's discovery, cached; a miss resets
// the cache, since a kind may be new (a CRD just installed).
func (cp *ControlPlane) RESTMapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	cp.mapperOnce.Do(func() {
		cp.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(
			discovery.NewDiscoveryClientForConfigOrDie(cp.Config)))
	})
	m, err := cp.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		cp.mapper.Reset()
	}
	return m, err
}

// StartControlPlane starts etcd and kube-apiserver on free loopback ports with client-cert authn and
// RBAC, installs the CRDs, creates the cluster-scoped config objects and applies manifests/ as the
// cluster-version operator would.
func StartControlPlane(ctx context.Context) (*ControlPlane, error) {
	cp, err := startClusterControlPlane(ctx, "manila-controlplane-", standaloneCluster)
	if err != nil {
		return nil, err
	}
	if err := cp.startBaseControllers(); err != nil {
		cp.Stop()
		return nil, err
	}
	if err := cp.ApplyManifests(ctx, NotApplied); err != nil {
		cp.Stop()
		return nil, err
	}
	return cp, nil
}

// clusterIdentity is what tells one cluster of the test world from another: the names and topology
// its config objects carry and the namespaces it has from the start.
type clusterIdentity struct {
	infrastructureName   string
	controlPlaneTopology configv1.TopologyMode
	clusterID            string
	namespaces           []string
}

// standaloneCluster is the shared world's cluster: a self-managed OpenShift cluster.
var standaloneCluster = clusterIdentity{
	infrastructureName:   "manila-test",
	controlPlaneTopology: configv1.HighlyAvailableTopologyMode,
	clusterID:            "00000000-0000-0000-0000-000000000001",
	// The operand namespace is not here: manifests/ brings it, as the payload does on a cluster.
	namespaces: []string{names.OperatorNamespace, "openshift-config", "openshift-config-managed"},
}

// startClusterControlPlane starts etcd and kube-apiserver in a new state directory named after
// prefix, installs the CRDs and creates the cluster's config objects.
func startClusterControlPlane(ctx context.Context, prefix string, id clusterIdentity) (*ControlPlane, error) {
	bin, crds := ControlPlaneBinDir(), CRDDir()
	if err := requireFiles("control plane", filepath.Join(bin, "kube-apiserver"), filepath.Join(bin, "etcd"), crds); err != nil {
		return nil, err
	}
	// The ports come from this process's range (FreePort), so no other shard takes one while its
	// server is stopped; a process outside the tests may still take one before etcd or kube-apiserver
	// binds it: then it starts again, in a new state directory, on new ports.
	var cp *ControlPlane
	for attempt := 1; ; attempt++ {
		state, err := os.MkdirTemp("", prefix)
		if err != nil {
			return nil, err
		}
		cp = &ControlPlane{StateDir: state, Kubeconfig: filepath.Join(state, "kubeconfig")}
		var p [3]int
		for i := range p {
			if p[i], err = FreePort(); err != nil {
				return nil, err
			}
		}
		env := []string{fmt.Sprintf("CONTROLPLANE_PORTS=%d %d %d", p[0], p[1], p[2])}
		_, err = runScript(env, "controlplane.sh", "start", bin, state)
		if err == nil {
			break
		}
		cp.Stop()
		if attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			return nil, err
		}
	}
	if err := cp.connect(); err != nil {
		cp.Stop()
		return nil, err
	}
	if err := cp.installCRDs(ctx, crds); err != nil {
		cp.Stop()
		return nil, fmt.Errorf("installing CRDs: %w", err)
	}
	if err := cp.seedClusterObjects(ctx, id); err != nil {
		cp.Stop()
		return nil, fmt.Errorf("creating cluster objects: %w", err)
	}
	return cp, nil
}

func (cp *ControlPlane) connect() error {
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cp.Config = cfg
	if cp.Kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	if cp.Dynamic, err = dynamic.NewForConfig(cfg); err != nil {
		return err
	}
	if cp.Operator, err = operatorclient.NewForConfig(cfg); err != nil {
		return err
	}
	cp.ConfigV1, err = configclient.NewForConfig(cfg)
	return err
}

// baseControllers are the controllers of kube-controller-manager that every pod relies on, as the
// API server admits pods with the ServiceAccount plugin: the ServiceAccount controller (each
// namespace's "default") and the root CA publisher (kube-root-ca.crt, which each pod's token volume
// projects). Tests start the other controllers they need (World.StartKubeControllers).
const baseControllers = "serviceaccount-controller,root-ca-certificate-publisher-controller"

// startBaseControllers runs kube-controller-manager with baseControllers for the control plane's
// life, its log in the state directory; it publishes the control plane's CA, which signed the API
// server's certificate.
func (cp *ControlPlane) startBaseControllers() error {
	kcm := filepath.Join(ProvisioningBinDir(), "kube-controller-manager")
	if err := requireFiles("kube-controller-manager (hack/k8s-binaries.sh build: make deps-k8s)", kcm); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(cp.StateDir, "kube-controller-manager.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(kcm, "--kubeconfig="+cp.Kubeconfig, "--controllers="+baseControllers,
		"--root-ca-file="+filepath.Join(cp.StateDir, "certs", "ca.crt"), "--leader-elect=false", "--secure-port=0")
	cmd.Env, cmd.Stdout, cmd.Stderr = []string{"PATH=" + os.Getenv("PATH")}, log, log
	cp.baseControllers, err = StartProcess(cmd)
	return err
}

// Stop stops kube-apiserver and etcd by PID and removes their state.
func (cp *ControlPlane) Stop() {
	if cp.baseControllers != nil {
		cp.baseControllers.Stop(10 * time.Second)
	}
	if out, err := runScript(nil, "controlplane.sh", "stop", cp.StateDir); err != nil {
		fmt.Fprintf(os.Stderr, "stopping the control plane: %v\n%s", err, out)
		return
	}
	_ = os.RemoveAll(cp.StateDir)
}

// StopAPIServer stops kube-apiserver alone; etcd and its data stay, so StartAPIServer brings the
// same cluster back on the same port and every kubeconfig for it works again: what clients see of an
// outage of the apiserver.
func (cp *ControlPlane) StopAPIServer() error {
	_, err := runScript(nil, "controlplane.sh", "stop-apiserver", cp.StateDir)
	return err
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same port with the same
// etcd, and returns once it is ready.
func (cp *ControlPlane) StartAPIServer() error {
	_, err := runScript(nil, "controlplane.sh", "start-apiserver", cp.StateDir)
	return err
}

// RestartAPIServer stops kube-apiserver and starts it again on the same port with the same etcd, and
// returns once it is ready: what clients see of a control-plane upgrade or crash.
func (cp *ControlPlane) RestartAPIServer() error {
	_, err := runScript(nil, "controlplane.sh", "restart-apiserver", cp.StateDir)
	return err
}

// AuditLogPath is kube-apiserver's audit log: one JSON line per request of a service account.
func (cp *ControlPlane) AuditLogPath() string { return filepath.Join(cp.StateDir, "audit.log") }

// APIServerLog returns kube-apiserver's log, for failure reports.
func (cp *ControlPlane) APIServerLog() string {
	b, _ := os.ReadFile(filepath.Join(cp.StateDir, "kube-apiserver.log"))
	return string(b)
}

func (cp *ControlPlane) installCRDs(ctx context.Context, dir string) error {
	client, err := apiextclient.NewForConfig(cp.Config)
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no CRD files in %s", dir)
	}
	var created []string
	for _, path := range files {
		crds, err := readCRDs(path)
		if err != nil {
			return err
		}
		for _, crd := range crds {
			if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return fmt.Errorf("%s: %w", crd.Name, err)
			}
			created = append(created, crd.Name)
		}
	}
	for _, name := range created {
		if err := WaitForCRD(ctx, client, name); err != nil {
			return err
		}
	}
	return nil
}

func readCRDs(path string) ([]*apiextv1.CustomResourceDefinition, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []*apiextv1.CustomResourceDefinition
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		crd := &apiextv1.CustomResourceDefinition{}
		if err := dec.Decode(crd); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if crd.Name != "" {
			out = append(out, crd)
		}
	}
}

// WaitForCRD waits until the CRD is Established and its API is served.
func WaitForCRD(ctx context.Context, client apiextclient.Interface, name string) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// seedClusterObjects creates what an OpenShift cluster has and a bare control plane lacks.
func (cp *ControlPlane) seedClusterObjects(ctx context.Context, id clusterIdentity) error {
	for _, ns := range id.namespaces {
		if err := createNamespace(ctx, cp.Kube, ns); err != nil {
			return err
		}
	}
	cfg := cp.ConfigV1.ConfigV1()
	cluster := metav1.ObjectMeta{Name: "cluster"}
	steps := []func() error{
		func() error {
			infra, err := cfg.Infrastructures().Create(ctx, &configv1.Infrastructure{ObjectMeta: cluster,
				Spec: configv1.InfrastructureSpec{PlatformSpec: configv1.PlatformSpec{Type: configv1.OpenStackPlatformType}}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			infra.Status = configv1.InfrastructureStatus{
				InfrastructureName:     id.infrastructureName,
				Platform:               configv1.OpenStackPlatformType,
				PlatformStatus:         &configv1.PlatformStatus{Type: configv1.OpenStackPlatformType},
				ControlPlaneTopology:   id.controlPlaneTopology,
				InfrastructureTopology: configv1.HighlyAvailableTopologyMode,
				APIServerURL:           cp.Config.Host,
				APIServerInternalURL:   cp.Config.Host,
			}
			_, err = cfg.Infrastructures().UpdateStatus(ctx, infra, metav1.UpdateOptions{})
			return err
		},
		func() error {
			_, err := cfg.Proxies().Create(ctx, &configv1.Proxy{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cfg.APIServers().Create(ctx, &configv1.APIServer{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cfg.FeatureGates().Create(ctx, &configv1.FeatureGate{ObjectMeta: cluster}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := cfg.ClusterVersions().Create(ctx, &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: "version"},
				Spec: configv1.ClusterVersionSpec{ClusterID: configv1.ClusterID(id.clusterID)}}, metav1.CreateOptions{})
			return err
		},
		// OpenShift's kube-apiserver operator lets every authenticated user read the in-cluster
		// authentication ConfigMap, so that anyone can set up delegated authentication (what
		// controllercmd's serving does at start, CSO's in an HCP namespace too).
		func() error {
			_, err := cp.Kube.RbacV1().RoleBindings("kube-system").Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "authentication-reader-for-authenticated-users", Namespace: "kube-system"},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
				Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:authenticated"}},
			}, metav1.CreateOptions{})
			return err
		},
	}
	for _, step := range steps {
		if err := step(); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

func createNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
