package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/nodeupdates"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// cephCSIUpdatePending is the condition that names the nodes still on an older ceph-csi pod.
var cephCSIUpdatePending = nodeupdates.ConditionPending("CephCSINodeUpdateController")

// ceph-csi's node DaemonSet is OnDelete: a new ceph-csi image (a new pod template) replaces no pod on
// its own, since a replaced pod ends the ceph-fuse mounts it serves. The operator names the nodes still
// on the older pod (CephCSINodeUpdateControllerPending, an event); a pod deleted on one node (a drain,
// the admin) comes back with the new template there only, and once every node runs it the condition
// is False. The cluster's DaemonSet controller makes the pods and the revisions; two pod runners bind
// them to their nodes, as the scheduler does (the image runs nowhere here: the pods wait to pull it).
func TestCephCSINodeUpdatesWaitForPodDeletion(t *testing.T) {
	ctx := context.Background()
	pods := world.Kube.CoreV1().Pods(names.OperandNamespace)
	const selector = "component=cephfs-cephcsi-nodeplugin"
	// Registered first, so it runs after kube-controller-manager has stopped.
	t.Cleanup(func() {
		_ = pods.DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{LabelSelector: selector})
	})
	startOperator(t, cephFSConfig(goodCephCSI), framework.ShareTypeSpec{Name: "default"},
		framework.ShareTypeSpec{Name: "gold", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}})
	world.StartKubeControllers(t, "daemonset-controller")
	nodes := []string{"ondelete-node-0", "ondelete-node-1"}
	for _, n := range nodes {
		world.StartPodRunner(t, framework.PodRunnerOptions{Namespace: names.OperandNamespace, Selector: selector, NodeName: n})
	}
	ds := waitForCephCSIImage(t, goodCephCSI)
	if ds.Spec.UpdateStrategy.Type != appsv1.OnDeleteDaemonSetStrategyType {
		t.Fatalf("DaemonSet %s has updateStrategy %s, want OnDelete", ds.Name, ds.Spec.UpdateStrategy.Type)
	}
	first := waitForCephCSIPods(t, nodes, goodCephCSI)
	world.WaitForCondition(t, cephCSIUpdatePending, operatorv1.ConditionFalse)

	world.WriteOperatorConfig(t, cephFSConfig(goodCephCSI2))
	waitForCephCSIImage(t, goodCephCSI2)
	cond := world.WaitForConditionNaming(t, framework.DefaultTimeout, cephCSIUpdatePending, operatorv1.ConditionTrue, "2 node(s)")
	for _, n := range nodes {
		if !strings.Contains(cond.Message, n) {
			t.Errorf("%s message %q does not name node %s", cond.Type, cond.Message, n)
		}
	}
	waitForEvent(t, nodeupdates.EventPending, nodes[0])
	// The pods the condition names are the ones that ran before: none was replaced.
	if now := cephCSIPodsNow(t); !samePods(now, first) {
		t.Fatalf("ceph-csi's pods changed without a deletion: %v, before %v", now, first)
	}
	t.Logf("%s=True: %s", cond.Type, cond.Message)

	// The admin deletes the pod on the first node: it comes back with the new image there only.
	if err := pods.Delete(ctx, first[nodes[0]].name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCephCSIPods(t, nodes[:1], goodCephCSI2)
	cond = world.WaitForConditionNaming(t, framework.DefaultTimeout, cephCSIUpdatePending, operatorv1.ConditionTrue, "1 node(s)")
	if strings.Contains(cond.Message, nodes[0]) || !strings.Contains(cond.Message, nodes[1]) {
		t.Errorf("%s message %q; want only %s named", cond.Type, cond.Message, nodes[1])
	}
	if now := cephCSIPodsNow(t); now[nodes[1]] != first[nodes[1]] {
		t.Errorf("the pod on %s was replaced without a deletion: %v, before %v", nodes[1], now[nodes[1]], first[nodes[1]])
	}

	if err := pods.Delete(ctx, first[nodes[1]].name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCephCSIPods(t, nodes, goodCephCSI2)
	world.WaitForCondition(t, cephCSIUpdatePending, operatorv1.ConditionFalse)
}

// cephCSIPod is one ceph-csi node pod: its name, UID and image.
type cephCSIPod struct {
	name  string
	uid   types.UID
	image string
}

// cephCSIPodsNow returns the bound ceph-csi node pods not being deleted, by node.
func cephCSIPodsNow(t *testing.T) map[string]cephCSIPod {
	t.Helper()
	list, err := world.Kube.CoreV1().Pods(names.OperandNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "component=cephfs-cephcsi-nodeplugin"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]cephCSIPod{}
	for _, p := range list.Items {
		if p.Spec.NodeName != "" && p.DeletionTimestamp == nil {
			out[p.Spec.NodeName] = cephCSIPod{name: p.Name, uid: p.UID, image: containerImage(p.Spec, "csi-driver")}
		}
	}
	return out
}

// waitForCephCSIPods waits until each of nodes has one bound ceph-csi pod running image, and returns
// every node's.
func waitForCephCSIPods(t *testing.T, nodes []string, image string) map[string]cephCSIPod {
	t.Helper()
	var now map[string]cephCSIPod
	framework.Eventually(t, framework.DefaultTimeout, "ceph-csi pods with "+image+" on "+strings.Join(nodes, ", "), func(ctx context.Context) error {
		now = cephCSIPodsNow(t)
		for _, n := range nodes {
			if p, ok := now[n]; !ok || p.image != image {
				return fmt.Errorf("pods by node: %v", now)
			}
		}
		return nil
	})
	return now
}

func samePods(a, b map[string]cephCSIPod) bool {
	keys := func(m map[string]cephCSIPod) []string {
		var out []string
		for k, v := range m {
			out = append(out, k+"/"+string(v.uid))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(keys(a), keys(b))
}
