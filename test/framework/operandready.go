package framework

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// OperandPodsReady stands in, until the test ends, for what a cluster's kubelets and workload
// controllers report once the operand's pods run: each Deployment and DaemonSet in the operand
// namespace gets the status of all its replicas (one per node for a DaemonSet, one node here) updated,
// ready and available at its current generation, as each is created or changed. Without a master Node
// it registers one for the test, as a kubelet does: the controller Deployment has a replica per master. The in-process world
// runs no operand pod, so the driver is never Available there; a test that needs it Available (this
// operator removes a Disabled of its own only then) calls this. Not for a test that runs the real
// deployment controller or the pod runner: they report the status themselves.
func (w *World) OperandPodsReady(t testing.TB) {
	t.Helper()
	w.registerMasterNode(t)
	standIn(t, "the operand's pods", 500*time.Millisecond, w.markOperandReady)
}

// markOperandReady writes the ready status of every operand workload that does not show it yet.
func (w *World) markOperandReady(ctx context.Context) error {
	apps := w.Kube.AppsV1()
	if deployments, err := apps.Deployments(names.OperandNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range deployments.Items {
			d := &deployments.Items[i]
			n := ptr.Deref(d.Spec.Replicas, 1)
			want := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: n, UpdatedReplicas: n, ReadyReplicas: n,
				AvailableReplicas: n, Conditions: []appsv1.DeploymentCondition{
					{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"},
					{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "NewReplicaSetAvailable"}}}
			if s := d.Status; s.ObservedGeneration == want.ObservedGeneration && s.AvailableReplicas == n && s.UpdatedReplicas == n && s.ReadyReplicas == n {
				continue
			}
			d.Status = want
			if _, err := apps.Deployments(names.OperandNamespace).UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
				return err // a conflict: the next tick
			}
		}
	}
	if daemonSets, err := apps.DaemonSets(names.OperandNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for i := range daemonSets.Items {
			ds := &daemonSets.Items[i]
			want := appsv1.DaemonSetStatus{ObservedGeneration: ds.Generation, DesiredNumberScheduled: 1, CurrentNumberScheduled: 1,
				UpdatedNumberScheduled: 1, NumberReady: 1, NumberAvailable: 1}
			if s := ds.Status; s.ObservedGeneration == want.ObservedGeneration && s.NumberAvailable == 1 && s.UpdatedNumberScheduled == 1 && s.DesiredNumberScheduled == 1 {
				continue
			}
			ds.Status = want
			if _, err := apps.DaemonSets(names.OperandNamespace).UpdateStatus(ctx, ds, metav1.UpdateOptions{}); err != nil && !apierrors.IsConflict(err) {
				return err
			}
		}
	}
	return nil
}

// operandReadyNode is the master Node OperandPodsReady registers when the world has none.
const operandReadyNode = "operand-ready-master-0"

func (w *World) registerMasterNode(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	masters, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "node-role.kubernetes.io/master"})
	if err != nil {
		t.Fatal(err)
	}
	if len(masters.Items) > 0 {
		return
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: operandReadyNode,
		Labels: map[string]string{"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux"}}}
	if _, err := w.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Kube.CoreV1().Nodes().Delete(context.Background(), operandReadyNode, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting Node %s: %v", operandReadyNode, err)
		}
	})
}
