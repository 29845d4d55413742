package integration

import (
	"context"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/workloadselector"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// An NFS node plugin DaemonSet with yet another selector (this operator's own older releases used
// app=csi-nodeplugin-nfsplugin) cannot be updated to the operator's selector. It is deleted, but its
// pods are not deleted with it: the operator marks them, deletes the DaemonSet with propagationPolicy
// Orphan, the cluster's garbage collector orphans them, and the operator gives them the new selector's
// labels, so that the DaemonSet controller adopts them into the operator's DaemonSet, whose rolling
// update then replaces them node by node. No kubelet runs here, so the test makes the old DaemonSet's
// pods itself, as its controller would have.
func TestDaemonSetWithAnotherSelectorHandsItsPodsOver(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	pods := world.Kube.CoreV1().Pods(names.OperandNamespace)
	// Registered first, so it runs after kube-controller-manager has stopped.
	t.Cleanup(func() {
		_ = pods.DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
	})
	world.StartKubeControllers(t, "garbage-collector-controller")

	old := map[string]string{"app": "csi-nodeplugin-nfsplugin"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: framework.NFSNodeDaemonSet, Namespace: names.OperandNamespace},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: old}, Template: foreignPodTemplate(old)}}
	ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	original := map[types.UID]string{}
	for _, node := range []string{"selector-node-0", "selector-node-1"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: ds.Name + "-", Namespace: names.OperandNamespace, Labels: old,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))}},
			Spec: *ds.Spec.Template.Spec.DeepCopy()}
		pod.Spec.NodeName = node
		framework.Eventually(t, framework.DefaultTimeout, "the old DaemonSet's pod on "+node, func(ctx context.Context) error {
			created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
			if err == nil {
				original[created.UID] = created.Name
			}
			return err // the ServiceAccount controller makes "default" first
		})
	}

	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	waitForEvent(t, "WorkloadRecreated", "Its 2 pods were orphaned, not deleted")
	world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(d *appsv1.DaemonSet) error {
		if d.UID == ds.UID || d.Spec.Selector.MatchLabels["component"] != "nfs-nodeplugin" {
			return fmt.Errorf("not the operator's DaemonSet yet: selector %v", d.Spec.Selector.MatchLabels)
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the old pods orphaned and labelled for the new DaemonSet", func(ctx context.Context) error {
		for uid, name := range original {
			pod, err := pods.Get(ctx, name, metav1.GetOptions{})
			if err != nil || pod.UID != uid {
				t.Fatalf("pod %s is gone (%v): the old DaemonSet's pods were deleted with it", name, err)
			}
			if ref := metav1.GetControllerOf(pod); ref != nil {
				return fmt.Errorf("pod %s still has controller %s", name, ref.Name)
			}
			if pod.Labels["app"] != "openstack-manila-csi" || pod.Labels["component"] != "nfs-nodeplugin" || pod.Labels[workloadselector.OrphanLabel] != ds.Name {
				return fmt.Errorf("pod %s has labels %v", name, pod.Labels)
			}
		}
		return nil
	})
	world.WaitForCondition(t, workloadselector.ConditionDegraded, operatorv1.ConditionFalse)
}
