package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// CSOBinDir holds what hack/cso.sh builds: cluster-storage-operator (main), cluster-storage-operator-4.20,
// cluster-storage-operator-4.17, the two OpenShift Manila operators it ran (csi-driver-manila-operator-4.17,
// openstack-manila-csi-driver-operator) and crds/ (the Storage CRD).
func CSOBinDir() string { return envOr("TEST_CSO_BIN_DIR", "_output/bin/cso") }

// CSOGeneration says which cluster-storage-operator runs: the release branches whose shapes of
// deploying OpenShift's Manila operator the world runs.
type CSOGeneration string

const (
	// CSOMain is CSO of main (4.18+ and 5.0 shape): csi-operator's Manila operator from
	// assets/csidriveroperators/openstack-manila, started with --config, and its config ConfigMap.
	CSOMain CSOGeneration = "main"
	// CSO420 is CSO of release-4.20 (the 4.19-4.22 shape): csi-operator's Manila operator from
	// assets/csidriveroperators/openstack-manila, `start -v=N` only, no config ConfigMap.
	CSO420 CSOGeneration = "4.20"
	// CSO417 is CSO of release-4.17: csi-driver-manila-operator from assets/csidriveroperators/manila,
	// `start -v=N` only, no config ConfigMap.
	CSO417 CSOGeneration = "4.17"
)

// Images the test world's release payload names: registry names that no registry serves. The pod
// runner (podrunner.go) maps them to binaries; CSO only writes them into the Deployments it applies.
const (
	// ImageOurOperator is this project's operator.
	ImageOurOperator = "registry.test/manila-operator:ours"
	// ImagePredecessor417 is OpenShift's <=4.17 Manila operator (openshift/csi-driver-manila-operator).
	ImagePredecessor417 = "registry.test/openshift/csi-driver-manila-operator:4.17"
	// ImagePredecessor418 is OpenShift's 4.18+ Manila operator (openshift/csi-operator).
	ImagePredecessor418 = "registry.test/openshift/openstack-manila-csi-driver-operator:4.18"
)

// CSO's names on a cluster (its manifests/ and pkg/csoclients).
const (
	CSONamespace          = "openshift-cluster-storage-operator"
	CSOServiceAccount     = "cluster-storage-operator"
	CSOClusterOperator    = "storage"
	CSOManilaDeployment   = "manila-csi-driver-operator"
	CSOManilaConfigMap    = "manila-csi-driver-operator-config"
	CSOManilaConditionPfx = "ManilaCSIDriverOperatorCR"
)

// CSOOptions says how StartCSO runs cluster-storage-operator.
type CSOOptions struct {
	// Generation is CSOMain when empty.
	Generation CSOGeneration
	// OperatorImage is MANILA_DRIVER_OPERATOR_IMAGE, the image of Deployment manila-csi-driver-operator;
	// empty means the generation's own (ImagePredecessor418 or ImagePredecessor417), as a release has it.
	OperatorImage string
	// Env is added to (and overrides) the environment StartCSO gives CSO, as a release's CSO Deployment
	// would have it.
	Env map[string]string
}

// CSO is a running cluster-storage-operator: the real binary of the generation chosen, run as a
// process against the world's kube-apiserver with the identity CSO's manifests give it
// (ServiceAccount openshift-cluster-storage-operator/cluster-storage-operator, bound to cluster-admin
// by ClusterRoleBinding cluster-storage-operator-role), its token from the TokenRequest API as the
// kubelet would mount it. There is no Deployment and no pod of CSO itself: the process stands in for
// its pod, and Restart for the rollout a new release's CSO Deployment causes.
type CSO struct {
	Generation CSOGeneration
	// Version is OPERATOR_IMAGE_VERSION and OPERAND_IMAGE_VERSION: the release version CSO reports in
	// ClusterOperator storage and looks up in FeatureGate cluster's status.
	Version string
	LogPath string

	w *World
	// hosted is the hosted world CSO runs in (StartCSOHosted); nil standalone.
	hosted   *HostedWorld
	bin      string
	dir      string
	env      map[string]string
	proc     *Process
	restarts int
}

// namespace is where CSO runs and applies the Manila operator's Deployment: its own namespace
// standalone, the HCP namespace hosted.
func (c *CSO) namespace() string {
	if c.hosted != nil {
		return c.hosted.HCPNamespace
	}
	return names.OperatorNamespace
}

// reports is the cluster whose ClusterCSIDrivers, Storage CR and ClusterOperator storage CSO reads and
// writes: the guest when hosted.
func (c *CSO) reports() *ControlPlane {
	if c.hosted != nil {
		return c.hosted.Guest
	}
	return c.w.ControlPlane
}

// csoVersions are the release versions the world's CSO runs as, one per generation.
var csoVersions = map[CSOGeneration]string{CSOMain: "5.0.0-test", CSO420: "4.20.0-test", CSO417: "4.17.0-test"}

// StartCSO runs cluster-storage-operator against the world until the test ends, after giving the
// world what a cluster has for it (see prepareCSO): the cluster-version operator's part (CSO's
// namespace, ServiceAccount, RBAC, Storage CR and ClusterOperator from its manifests, its release
// environment) and the config operator's (the Storage CRD, FeatureGate status for CSO's version).
// On OpenStack CSO starts both drivers of the platform, Manila and Cinder, and the volume data source
// validator it runs on every platform; no pod of theirs runs. manifests/' bindings of the operator's
// ServiceAccount are removed meanwhile (removeManifestBindings): under CSO only CSO's RBAC applies.
//
// When the test ends CSO is stopped and the world is put back as it was before StartCSO: every
// object created since is deleted (namespaces included: what the namespace controller would do is
// done here, as none runs; a namespace that stays keeps the default ServiceAccount and
// kube-root-ca.crt the cluster's controllers keep in it), every object changed is restored (the operator's Deployment, Service,
// ServiceAccount and operand namespace from manifests/, which CSO applies its own versions of), and
// every object deleted is created again. The shard's later tests find the world they expect.
func (w *World) StartCSO(t testing.TB, opts CSOOptions) *CSO {
	t.Helper()
	gen := opts.Generation
	if gen == "" {
		gen = CSOMain
	}
	name := map[CSOGeneration]string{CSOMain: "cluster-storage-operator", CSO420: "cluster-storage-operator-4.20",
		CSO417: "cluster-storage-operator-4.17"}[gen]
	if name == "" {
		t.Fatalf("unknown CSO generation %q", gen)
	}
	bin := filepath.Join(CSOBinDir(), name)
	if err := requireFiles("cluster-storage-operator (hack/cso.sh build "+CSOBinDir()+")", bin, filepath.Join(CSOBinDir(), "crds")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before, err := w.takeSnapshot(ctx)
	if err != nil {
		t.Fatalf("recording the world before CSO: %v", err)
	}
	t.Cleanup(func() {
		if err := w.restoreSnapshot(context.Background(), before); err != nil {
			t.Errorf("putting the world back after CSO: %v", err)
		}
	})
	c := &CSO{Generation: gen, Version: csoVersions[gen], w: w, bin: bin, dir: t.TempDir()}
	c.LogPath = filepath.Join(c.dir, "cluster-storage-operator.log")
	c.env = c.releaseEnv(opts)
	if err := w.prepareCSO(ctx, c.Version, bin+".manifests", true); err != nil {
		t.Fatalf("preparing the world for CSO: %v", err)
	}
	if err := w.removeManifestBindings(ctx); err != nil {
		t.Fatalf("preparing the world for CSO: %v", err)
	}
	if err := c.start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop()
		LogOnFailure(t, "cluster-storage-operator log", 60, c.Log())
	})
	return c
}

// releaseEnv is the environment of CSO's container as a release payload's manifests/10_deployment.yaml
// sets it, with the world's fake images.
func (c *CSO) releaseEnv(opts CSOOptions) map[string]string {
	operatorImage := opts.OperatorImage
	if operatorImage == "" {
		operatorImage = map[CSOGeneration]string{CSOMain: ImagePredecessor418, CSO420: ImagePredecessor418,
			CSO417: ImagePredecessor417}[c.Generation]
	}
	img := func(name string) string { return "registry.test/openshift/" + name + ":" + c.Version }
	env := map[string]string{
		"OPERATOR_IMAGE_VERSION":                  c.Version,
		"OPERAND_IMAGE_VERSION":                   c.Version,
		"MANILA_DRIVER_OPERATOR_IMAGE":            operatorImage,
		"MANILA_DRIVER_IMAGE":                     img("csi-driver-manila"),
		"MANILA_NFS_DRIVER_IMAGE":                 img("csi-driver-nfs"),
		"MANILA_DRIVER_CONTROL_PLANE_IMAGE":       img("csi-driver-manila"),
		"PROVISIONER_IMAGE":                       img("csi-external-provisioner"),
		"ATTACHER_IMAGE":                          img("csi-external-attacher"),
		"RESIZER_IMAGE":                           img("csi-external-resizer"),
		"SNAPSHOTTER_IMAGE":                       img("csi-external-snapshotter"),
		"NODE_DRIVER_REGISTRAR_IMAGE":             img("csi-node-driver-registrar"),
		"LIVENESS_PROBE_IMAGE":                    img("csi-livenessprobe"),
		"KUBE_RBAC_PROXY_IMAGE":                   img("kube-rbac-proxy"),
		"TOOLS_IMAGE":                             img("tools"),
		"OPENSTACK_CINDER_DRIVER_OPERATOR_IMAGE":  img("openstack-cinder-csi-driver-operator"),
		"OPENSTACK_CINDER_DRIVER_IMAGE":           img("openstack-cinder-csi-driver"),
		"VSPHERE_PROBLEM_DETECTOR_OPERATOR_IMAGE": img("vsphere-problem-detector"),
		"VOLUME_DATA_SOURCE_VALIDATOR_IMAGE":      img("volume-data-source-validator"),
	}
	if c.hosted != nil {
		for k, v := range c.hostedReleaseEnv() {
			env[k] = v
		}
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	return env
}

// OperandImages are the images of CSO's release environment other than the Manila operator's: the
// ones the operators CSO runs write into their operands.
func (c *CSO) OperandImages() []string {
	var images []string
	for k, v := range c.env {
		if strings.HasPrefix(v, "registry.test/") && k != "MANILA_DRIVER_OPERATOR_IMAGE" {
			images = append(images, v)
		}
	}
	sort.Strings(images)
	return images
}

// OperatorImage is the Manila operator image CSO currently runs with.
func (c *CSO) OperatorImage() string { return c.env["MANILA_DRIVER_OPERATOR_IMAGE"] }

// start runs the binary as CSO's container runs it (manifests/10_deployment.yaml: `start -v=2
// --config=...`), with the flags a pod gets for free: --kubeconfig (the mounted token),
// --namespace (the downward namespace file) and --listen on a free loopback port instead of :8443.
//
// Hosted, as HyperShift's Deployment of CSO runs it: in the HCP namespace as its ServiceAccount there,
// with --guest-kubeconfig (service-network-admin-kubeconfig: the guest's admin) and no --config.
func (c *CSO) start(ctx context.Context) error {
	c.restarts++
	ns := CSONamespace
	if c.hosted != nil {
		ns = c.hosted.HCPNamespace
	}
	kubeconfig, err := c.w.WriteServiceAccountKubeconfig(ctx, ns, CSOServiceAccount,
		filepath.Join(c.dir, fmt.Sprintf("kubeconfig-%d", c.restarts)))
	if err != nil {
		return err
	}
	// ConfigMap cluster-storage-operator-config as CSO's manifests/04_configmap.yaml has it.
	config := filepath.Join(c.dir, "config.yaml")
	if err := os.WriteFile(config, []byte("apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\n"), 0o644); err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(c.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(f, "==== start %d\n", c.restarts)
	args := []string{"start", "-v=2", "--kubeconfig=" + kubeconfig, "--namespace=" + ns, "--listen=127.0.0.1:" + strconv.Itoa(port)}
	if c.hosted != nil {
		args = append(args, "--guest-kubeconfig="+c.hosted.Guest.Kubeconfig)
	} else {
		args = append(args, "--config="+config)
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + tmp}
	keys := make([]string, 0, len(c.env))
	for k := range c.env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+c.env[k])
	}
	cmd.Stdout, cmd.Stderr = f, f
	if c.proc, err = StartProcess(cmd); err != nil {
		return fmt.Errorf("starting %s: %w", c.bin, err)
	}
	return nil
}

// Restart is what a release that changes CSO's environment does: CSO reads its images from the
// environment once, at start, so a new image (MANILA_DRIVER_OPERATOR_IMAGE, say) reaches the Manila
// operator's Deployment only through a new CSO pod, rolled out by the CSO Deployment whose env
// changed. The old process is stopped (it releases its leader lease on SIGTERM), a new one starts
// with env merged into the old environment.
func (c *CSO) Restart(t testing.TB, env map[string]string) {
	t.Helper()
	c.Stop()
	for k, v := range env {
		c.env[k] = v
	}
	if err := c.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The new process leads only once the old one's lease is free: at once when the old one released
	// it, after the lease runs out (library-go's 137 s, then a jittered retry) when its release failed
	// (a renewal in flight at SIGTERM makes it conflict). What a test times after the restart is then
	// CSO's work, not its lease.
	marker := fmt.Sprintf("==== start %d\n", c.restarts)
	Eventually(t, csoLeaseTimeout, "CSO's start "+fmt.Sprint(c.restarts)+" holding its lease", func(context.Context) error {
		_, since, _ := strings.Cut(c.Log(), marker)
		if !strings.Contains(strings.ToLower(since), "successfully acquired lease") {
			return fmt.Errorf("not yet; CSO's log of this start ends:\n%s", tail(strings.TrimRight(since, "\n"), 3))
		}
		return nil
	})
}

// csoLeaseTimeout bounds CSO's wait for its own lease after a restart: a lease its previous process
// failed to release runs out after 137 s, and the next try comes within 2.2 retry periods (26 s each);
// a minute more for a loaded machine.
const csoLeaseTimeout = 137*time.Second + 58*time.Second + time.Minute

// SetOperatorImage restarts CSO with MANILA_DRIVER_OPERATOR_IMAGE=image: the release swap of the
// Manila operator.
func (c *CSO) SetOperatorImage(t testing.TB, image string) {
	t.Helper()
	c.Restart(t, map[string]string{"MANILA_DRIVER_OPERATOR_IMAGE": image})
}

// Stop stops the CSO process (SIGTERM, then SIGKILL after 15 s); it may be called more than once.
func (c *CSO) Stop() {
	if c.proc != nil {
		c.proc.Stop(15 * time.Second)
	}
}

// Exited reports whether the CSO process has exited, and how.
func (c *CSO) Exited() (bool, error) {
	select {
	case <-c.proc.Exited:
		return true, c.proc.Err
	default:
		return false, nil
	}
}

// Log returns what CSO has logged so far, every start of it.
func (c *CSO) Log() string {
	b, _ := os.ReadFile(c.LogPath)
	return string(b)
}

// Storage returns CSO's own CR, operator.openshift.io Storage cluster.
func (c *CSO) Storage(ctx context.Context) (*operatorv1.Storage, error) {
	return c.reports().Operator.OperatorV1().Storages().Get(ctx, "cluster", metav1.GetOptions{})
}

// StorageCondition returns the condition of CSO's Storage CR, or an error saying what is there instead.
func (c *CSO) StorageCondition(ctx context.Context, condType string) (operatorv1.OperatorCondition, error) {
	s, err := c.Storage(ctx)
	if err != nil {
		return operatorv1.OperatorCondition{}, err
	}
	if cond := v1helpers.FindOperatorCondition(s.Status.Conditions, condType); cond != nil {
		return *cond, nil
	}
	var have []string
	for _, cond := range s.Status.Conditions {
		have = append(have, cond.Type+"="+string(cond.Status))
	}
	return operatorv1.OperatorCondition{}, fmt.Errorf("no condition %s in Storage cluster; have %v", condType, have)
}

// ClusterOperator returns ClusterOperator storage, where CSO reports to the cluster-version operator.
func (c *CSO) ClusterOperator(ctx context.Context) (*configv1.ClusterOperator, error) {
	return c.reports().ConfigV1.ConfigV1().ClusterOperators().Get(ctx, CSOClusterOperator, metav1.GetOptions{})
}

// csoManifests stands in for what the cluster-version operator applies from CSO's manifests/ before
// CSO runs (written here from what those manifests say, not copied): CSO's namespace, its
// ServiceAccount bound to cluster-admin, the Storage CR (create-only there: Managed, Normal log
// levels) and ClusterOperator storage. Namespace openshift-cluster-csi-drivers comes from manifests/
// of this project already.
const csoManifests = `
apiVersion: v1
kind: Namespace
metadata:
  name: openshift-cluster-storage-operator
  labels: {openshift.io/cluster-monitoring: "true"}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: cluster-storage-operator, namespace: openshift-cluster-storage-operator}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: cluster-storage-operator-role}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: cluster-storage-operator, namespace: openshift-cluster-storage-operator}
---
apiVersion: operator.openshift.io/v1
kind: Storage
metadata: {name: cluster}
spec: {managementState: Managed, logLevel: Normal, operatorLogLevel: Normal}
---
apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata: {name: storage}
spec: {}
`

// subscriptionCRD is OLM's Subscription CRD reduced to what the test world needs (the same group,
// version, kind and scope; the schema keeps every field). A 4.17 cluster has OLM; CSO 4.17's
// OLM-removal controller lists Subscriptions to find an OLM-installed Manila operator (none here).
const subscriptionCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: subscriptions.operators.coreos.com
spec:
  group: operators.coreos.com
  names: {kind: Subscription, listKind: SubscriptionList, plural: subscriptions, singular: subscription, shortNames: [sub, subs]}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// prepareCSO gives the world what CSO reads at start on a cluster, beyond what the world has for the
// operator (Infrastructure cluster on OpenStack, Proxy, APIServer, ClusterVersion, FeatureGate):
//   - the CRDs of Storage (CSOBinDir()/crds, from openshift/api) and OLM's Subscription;
//   - csoManifests, as the cluster-version operator applies them, and the ClusterRoles of the CSI
//     sidecars from the generation's own manifests/ (manifestsDir; the driver operators CSO runs bind
//     their operands' ServiceAccounts to them, which RBAC refuses while a role is missing);
//   - FeatureGate cluster's status for CSO's version, as the config operator writes it: CSO waits (a
//     minute, then exits) until it finds its version there, and library-go panics on a gate it asks
//     about that is in neither list; CSO main asks about SELinuxMountGAReadiness (disabled here, so
//     CSO does not start that controller).
//
// With credentials false, the cloud-credential operator's answers are not written.
func (w *World) prepareCSO(ctx context.Context, version, manifestsDir string, credentials bool) error {
	if err := w.installCRDs(ctx, filepath.Join(CSOBinDir(), "crds")); err != nil {
		return fmt.Errorf("Storage CRD: %w", err)
	}
	if err := w.ApplyDocuments(ctx, []byte(subscriptionCRD)); err != nil {
		return err
	}
	ext, err := apiextclient.NewForConfig(w.Config)
	if err != nil {
		return err
	}
	if err := WaitForCRD(ctx, ext, "subscriptions.operators.coreos.com"); err != nil {
		return err
	}
	if err := w.ApplyDocuments(ctx, []byte(csoManifests)); err != nil {
		return err
	}
	roles, err := filepath.Glob(filepath.Join(manifestsDir, "09_*role.yaml"))
	if err != nil || len(roles) == 0 {
		return fmt.Errorf("no sidecar ClusterRoles in %s (hack/cso.sh keeps CSO's manifests/ there): %v", manifestsDir, err)
	}
	for _, f := range roles {
		if !strings.Contains(f, "/09_openshift-csi-") && !strings.Contains(f, "/09_sidecar-") {
			continue
		}
		doc, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := w.ApplyDocuments(ctx, doc); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(f), err)
		}
	}
	if credentials {
		if err := w.answerCredentialsRequests(ctx, manifestsDir); err != nil {
			return err
		}
	}
	return w.featureGatesFor(ctx, version)
}

// answerCredentialsRequests writes what the cloud-credential operator writes for CSO's
// CredentialsRequests.
func (w *World) answerCredentialsRequests(ctx context.Context, manifestsDir string) error {
	// The cloud-credential operator's answer to CSO's Cinder CredentialsRequest
	// (manifests/03_credentials_request_cinder.yaml): the cloud's clouds.yaml, which the Manila
	// operator's Deployment of 4.18 and later mounts at /etc/openstack.
	clouds, err := w.Kube.CoreV1().Secrets(names.OperatorNamespace).Get(ctx, names.CloudCredentialsSecret, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the world's cloud credentials: %w", err)
	}
	answers := []*corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Name: names.HostedOpenStackCredentialsSecret, Namespace: names.OperatorNamespace}}}
	// And to the one for the operand's namespace (03_credentials_request_manila_namespace.yaml, 4.18 and
	// later), which csi-operator's controller Deployment mounts.
	if _, err := os.Stat(filepath.Join(manifestsDir, "03_credentials_request_manila_namespace.yaml")); err == nil {
		answers = append(answers, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: names.CloudCredentialsSecret, Namespace: names.OperandNamespace}})
	}
	for _, s := range answers {
		s.Data = map[string][]byte{names.CloudsYAMLKey: clouds.Data[names.CloudsYAMLKey]}
		if _, err := w.Kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// featureGatesFor writes FeatureGate cluster's status for CSO's version, as the config operator does.
func (w *World) featureGatesFor(ctx context.Context, version string) error {
	gates := w.ConfigV1.ConfigV1().FeatureGates()
	fg, err := gates.Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		return err
	}
	details := configv1.FeatureGateDetails{Version: version,
		Disabled: []configv1.FeatureGateAttributes{{Name: "SELinuxMountGAReadiness"}}}
	kept := []configv1.FeatureGateDetails{details}
	for _, d := range fg.Status.FeatureGates {
		if d.Version != version {
			kept = append(kept, d)
		}
	}
	fg.Status.FeatureGates = kept
	_, err = gates.UpdateStatus(ctx, fg, metav1.UpdateOptions{})
	return err
}

// removeManifestBindings deletes manifests/' RoleBindings and ClusterRoleBindings of the operator's
// ServiceAccount: where CSO runs the Manila operator, this project's manifests/ are not applied (CSO
// applies its own Manila objects), so only CSO's RBAC grants the operator anything. They come back
// with the rest of the world when the test ends.
func (w *World) removeManifestBindings(ctx context.Context) error {
	objs, err := manifests.Objects()
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if obj.GetKind() != "RoleBinding" && obj.GetKind() != "ClusterRoleBinding" {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(obj.Object, "subjects")
		ours := false
		for _, s := range subjects {
			m, _ := s.(map[string]any)
			ours = ours || m["kind"] == "ServiceAccount" && m["name"] == names.OperatorName && m["namespace"] == names.OperatorNamespace
		}
		if !ours {
			continue
		}
		ri, err := w.resourceFor(obj)
		if err != nil {
			return err
		}
		if err := ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting manifests/' %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
	return nil
}

// ---------------------------------------------------------------- putting the world back

// snapshotKind is one kind of object the world is put back for: everything CSO (and what it starts)
// creates or changes, in the order in which it is put back (contents before namespaces, custom
// resources' CRDs after them). Events are not among them: they are a record, kept as a cluster keeps
// them until they expire (and the test binary's closing sentinel check reads them).
type snapshotKind struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	// deleteOnly: objects created since are deleted, changed ones left as they are (leases).
	deleteOnly bool
}

var snapshotKinds = []snapshotKind{
	{gvr: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}, namespaced: true, deleteOnly: true},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}, namespaced: true},
	// What the garbage collector would remove with the Deployments and DaemonSets above (none runs).
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, namespaced: true, deleteOnly: true},
	{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "controllerrevisions"}, namespaced: true, deleteOnly: true},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, namespaced: true, deleteOnly: true},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "prometheusrules"}, namespaced: true},
	{gvr: schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "clustercsidrivers"}},
	{gvr: schema.GroupVersionResource{Group: "operator.openshift.io", Version: "v1", Resource: "storages"}},
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "clusteroperators"}},
	{gvr: schema.GroupVersionResource{Group: "config.openshift.io", Version: "v1", Resource: "featuregates"}},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}},
	{gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}},
	{gvr: schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}},
	{gvr: schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}},
	{gvr: schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}},
	{gvr: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}},
}

// worldSnapshot is every object of snapshotKinds, by kind and namespace/name.
type worldSnapshot map[schema.GroupVersionResource]map[string]*unstructured.Unstructured

func objectKey(o *unstructured.Unstructured) string { return o.GetNamespace() + "/" + o.GetName() }

// listKind lists every object of the kind in every namespace; a kind whose CRD is not installed has
// none.
func (w *World) listKind(ctx context.Context, k snapshotKind) (map[string]*unstructured.Unstructured, error) {
	list, err := w.Dynamic.Resource(k.gvr).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return map[string]*unstructured.Unstructured{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", k.gvr.Resource, err)
	}
	out := make(map[string]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		out[objectKey(&list.Items[i])] = &list.Items[i]
	}
	return out, nil
}

func (w *World) takeSnapshot(ctx context.Context) (worldSnapshot, error) {
	s := worldSnapshot{}
	for _, k := range snapshotKinds {
		objs, err := w.listKind(ctx, k)
		if err != nil {
			return nil, err
		}
		s[k.gvr] = objs
	}
	return s, nil
}

// restoreSnapshot deletes what was created since s, restores what changed and recreates what was
// deleted, kind by kind in snapshotKinds order; it reports every failure and goes on.
func (w *World) restoreSnapshot(ctx context.Context, s worldSnapshot) error {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	// The namespaces made since go first into Terminating, as a namespace's deletion does, so that the
	// cluster's controllers make nothing more in them (each namespace's default ServiceAccount and
	// kube-root-ca.crt); they go last, once emptied.
	namespaces, err := w.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, ns := range namespaces.Items {
		if _, existed := s[namespacesGVR]["/"+ns.Name]; !existed {
			if err := w.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				fail("deleting namespace %s: %v", ns.Name, err)
			}
		}
	}
	for _, k := range snapshotKinds {
		now, err := w.listKind(ctx, k)
		if err != nil {
			fail("%v", err)
			continue
		}
		then := s[k.gvr]
		for key, cur := range now {
			old, existed := then[key]
			switch {
			case !existed && keptByTheCluster(cur) && s[namespacesGVR]["/"+cur.GetNamespace()] != nil:
				// The cluster's controllers keep it in every namespace: it stays as long as the namespace.
			case !existed:
				if err := w.deleteNow(ctx, k, cur); err != nil {
					fail("deleting %s %s: %v", k.gvr.Resource, key, err)
				}
			case k.deleteOnly || sameObject(old, cur):
			default:
				if err := w.restoreObject(ctx, k, old, cur); err != nil {
					fail("restoring %s %s: %v", k.gvr.Resource, key, err)
				}
			}
		}
		for key, old := range then {
			if _, ok := now[key]; ok || k.deleteOnly {
				continue
			}
			if _, err := w.resource(k, old.GetNamespace()).Create(ctx, fresh(old), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				fail("recreating %s %s: %v", k.gvr.Resource, key, err)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// keptByTheCluster says whether the world's base controllers make o in every namespace (its default
// ServiceAccount, its kube-root-ca.crt) and would make it again were it deleted.
func keptByTheCluster(o *unstructured.Unstructured) bool {
	switch o.GetKind() {
	case "ServiceAccount":
		return o.GetName() == "default"
	case "ConfigMap":
		return o.GetName() == "kube-root-ca.crt"
	}
	return false
}

// objectClient is what the world's snapshot and restore do with one kind's objects.
type objectClient interface {
	Create(context.Context, *unstructured.Unstructured, metav1.CreateOptions, ...string) (*unstructured.Unstructured, error)
	Update(context.Context, *unstructured.Unstructured, metav1.UpdateOptions, ...string) (*unstructured.Unstructured, error)
	UpdateStatus(context.Context, *unstructured.Unstructured, metav1.UpdateOptions) (*unstructured.Unstructured, error)
	Delete(context.Context, string, metav1.DeleteOptions, ...string) error
	Get(context.Context, string, metav1.GetOptions, ...string) (*unstructured.Unstructured, error)
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (*unstructured.Unstructured, error)
}

func (w *World) resource(k snapshotKind, namespace string) objectClient {
	if k.namespaced {
		return w.Dynamic.Resource(k.gvr).Namespace(namespace)
	}
	return w.Dynamic.Resource(k.gvr)
}

// sameObject says whether two versions of an object differ in anything but bookkeeping.
func sameObject(a, b *unstructured.Unstructured) bool {
	return equality.Semantic.DeepEqual(bare(a).Object, bare(b).Object)
}

// bare is o without the server's bookkeeping.
func bare(o *unstructured.Unstructured) *unstructured.Unstructured {
	c := o.DeepCopy()
	for _, f := range []string{"resourceVersion", "managedFields", "generation"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	if status, ok := c.Object["status"].(map[string]any); ok && len(status) == 0 {
		delete(c.Object, "status") // an empty status is no status
	}
	return c
}

// fresh is o as it can be created again: without identity and server bookkeeping.
func fresh(o *unstructured.Unstructured) *unstructured.Unstructured {
	c := bare(o)
	for _, f := range []string{"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	return c
}

// restoreObject puts old back in place of cur: spec and metadata by update (delete and create when
// an immutable field changed), status by the status subresource where there is one.
func (w *World) restoreObject(ctx context.Context, k snapshotKind, old, cur *unstructured.Unstructured) error {
	r := w.resource(k, old.GetNamespace())
	want := bare(old)
	want.SetResourceVersion(cur.GetResourceVersion())
	updated, err := r.Update(ctx, want, metav1.UpdateOptions{})
	if apierrors.IsInvalid(err) {
		if err := w.deleteNow(ctx, k, cur); err != nil {
			return err
		}
		_, err = r.Create(ctx, fresh(old), metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	// An empty status is left out of the object: put back as empty.
	status, hasStatus, _ := unstructured.NestedFieldNoCopy(old.Object, "status")
	curStatus, curHasStatus, _ := unstructured.NestedFieldNoCopy(updated.Object, "status")
	if !hasStatus && !curHasStatus || equality.Semantic.DeepEqual(status, curStatus) {
		return nil
	}
	if !hasStatus {
		status = map[string]any{}
	}
	want = updated.DeepCopy()
	_ = unstructured.SetNestedField(want.Object, status, "status")
	if _, err := r.UpdateStatus(ctx, want, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// deleteNow deletes o and waits until it is gone, doing what the cluster's controllers would for it
// where none runs here: finalizers that nothing would remove are removed, and a namespace (emptied
// before, kind by kind) is finalized as the namespace controller does.
func (w *World) deleteNow(ctx context.Context, k snapshotKind, o *unstructured.Unstructured) error {
	r := w.resource(k, o.GetNamespace())
	// At once: no kubelet is left to finish a bound pod's graceful deletion.
	now := int64(0)
	if err := r.Delete(ctx, o.GetName(), metav1.DeleteOptions{GracePeriodSeconds: &now}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		cur, err := r.Get(ctx, o.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still there after 30s (finalizers %v)", cur.GetFinalizers())
		}
		if len(cur.GetFinalizers()) > 0 {
			_, err = r.Patch(ctx, o.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		if k.gvr.Resource == "namespaces" {
			ns, err := w.Kube.CoreV1().Namespaces().Get(ctx, o.GetName(), metav1.GetOptions{})
			if err == nil && len(ns.Spec.Finalizers) > 0 {
				ns.Spec.Finalizers = nil
				if _, err := w.Kube.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
		}
		<-time.After(200 * time.Millisecond)
	}
}

// resourceFor is the dynamic client of obj's kind, in its namespace when it has one.
func (w *World) resourceFor(obj *unstructured.Unstructured) (objectClient, error) {
	mapping, err := w.RESTMapping(obj.GroupVersionKind())
	if err != nil {
		return nil, err
	}
	return w.resource(snapshotKind{gvr: mapping.Resource, namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace}, obj.GetNamespace()), nil
}
