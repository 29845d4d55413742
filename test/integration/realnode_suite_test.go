package integration

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// storageSuiteAllEnv, set, makes the suite subtests run every spec of their driver (make
// test-e2e-storage) and print the table of what passed, skipped and failed, instead of the focused
// list `make test` runs.
const storageSuiteAllEnv = "TEST_E2E_STORAGE_ALL"

// upstreamSuite is Kubernetes' external storage suite run on the real node (of realNodeClaim, whose
// node lifecycle controller has taken the not-ready taint off) for one of the operator's drivers: the
// suite's pods go only to the real node (every other Node is cordoned while it runs), the kubelet
// mounts the claims the suite makes on the operator's class through the operator's node plugins. The
// namespace and garbage collector controllers run for its namespaces, and the ephemeral volume
// controller makes the claims of its pods' generic ephemeral volumes, as on a cluster.
type upstreamSuite struct {
	Manifest string   // in test/e2e-storage
	Focus    []string // the specs `make test` runs
	Node     string   // the real node
}

func (u upstreamSuite) run(t *testing.T, w *framework.World) {
	w.StartKubeControllers(t, "namespace-controller", "garbage-collector-controller", "ephemeral-volume-controller")
	cordonAllBut(t, w, u.Node)
	s := framework.StorageSuite{Manifest: u.Manifest, Focus: u.Focus, Timeout: 20 * time.Minute}
	all := os.Getenv(storageSuiteAllEnv) != ""
	if all {
		// Disruptive specs restart the kubelet or the node over SSH, which the world has not got.
		s.Focus, s.Skip, s.Timeout = []string{"External.Storage"}, `\[Disruptive\]`, 3*time.Hour
	}
	specs := w.RunStorageSuite(t, s)
	t.Logf("the external storage suite for %s on %s:\n%s", u.Manifest, u.Node, framework.SpecTable(specs))
	if all {
		return // the table is the result: make test-e2e-storage prints it
	}
	for _, p := range framework.FocusedRunProblems(specs, u.Focus) {
		t.Error(p)
	}
}

// waitForNoTaint waits until the node has no taint of the key.
func waitForNoTaint(t *testing.T, w *framework.World, node, key string) {
	t.Helper()
	framework.Eventually(t, realNodeTimeout, "node "+node+" without taint "+key, func(ctx context.Context) error {
		n, err := w.Kube.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, taint := range n.Spec.Taints {
			if taint.Key == key {
				return fmt.Errorf("taints %v", n.Spec.Taints)
			}
		}
		return nil
	})
}

// cordonAllBut marks every Node but one unschedulable until the test ends.
func cordonAllBut(t *testing.T, w *framework.World, keep string) {
	t.Helper()
	ctx := context.Background()
	nodes, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Name == keep || n.Spec.Unschedulable {
			continue
		}
		setUnschedulable(t, w, n.Name, true)
		name := n.Name
		t.Cleanup(func() { setUnschedulable(t, w, name, false) })
	}
}

func setUnschedulable(t *testing.T, w *framework.World, node string, unschedulable bool) {
	t.Helper()
	patch := `{"spec":{"unschedulable":` + map[bool]string{true: "true", false: "null"}[unschedulable] + `}}`
	_, err := w.Kube.CoreV1().Nodes().Patch(context.Background(), node, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("cordoning node %s: %v", node, err)
	}
}

// The focused lists `make test` runs (regular expressions over a spec's text; each must run a spec,
// and every spec that runs must pass), chosen so that together they cover what a workload asks of a
// shared file system: provisioning with data that outlives its pod and exec of a file on it, RWX from
// two pods at once, a subpath, online expansion, a restore from a snapshot, and a volume the pod does
// not mount left unmounted on the node (volume mode: the spec for a refused block mode needs raw
// block, which neither driver has, and skips). The two drivers share manila-csi-plugin's controller
// half, so each takes half the list; their node halves differ (fuse-nfs through csi-driver-nfs, ceph-fuse through ceph-csi), and
// each list mounts through its own. make test-e2e-storage runs the rest.
var (
	nfsSuiteFocus = []string{
		`\[Testpattern: Dynamic PV \(default fs\)\] volumes should store data`,
		`\[Testpattern: Dynamic PV \(default fs\)\] volumes should allow exec of files on the volume`,
		`\[Testpattern: Dynamic PV \(filesystem volmode\)\] multiVolume \[Slow\] should concurrently access the single volume from pods on the same node`,
		`\[Testpattern: Dynamic PV \(default fs\)\] subPath should support existing directory`,
	}
	cephFSSuiteFocus = []string{
		`\[Testpattern: Dynamic PV \(default fs\)\] provisioning should provision storage with snapshot data source \[`,
		`\[Testpattern: Dynamic PV \(default fs\)\(allowExpansion\)\] volume-expand should resize volume when PVC is edited while pod is using it`,
		`\[Testpattern: Dynamic PV \(filesystem volmode\)\] volumeMode should not mount / map unused volumes in a pod`,
	}
)
