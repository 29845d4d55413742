package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/workloadselector"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// An NFS node plugin DaemonSet with yet another selector (this operator's own older releases used
// app=csi-nodeplugin-nfsplugin) cannot be updated to the operator's selector. It is deleted, but its
// pods are not deleted with it: the cluster's garbage collector orphans them, the operator gives them
// the new selector's labels, and the cluster's DaemonSet controller adopts them into the operator's
// DaemonSet, whose rolling update then replaces them node by node.
func TestDaemonSetWithAnotherSelectorHandsItsPodsOver(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	pods := world.Kube.CoreV1().Pods(names.OperandNamespace)
	// Registered first, so it runs after kube-controller-manager has stopped: the DaemonSet controller's
	// pods, which no kubelet runs or removes.
	t.Cleanup(func() {
		_ = pods.DeleteCollection(context.Background(), metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
	})
	world.StartKubeControllers(t, "garbage-collector-controller", "daemonset-controller", "serviceaccount-controller")
	world.CreateNode(t, "selector-node-0")
	world.CreateNode(t, "selector-node-1")

	old := map[string]string{"app": "csi-nodeplugin-nfsplugin"}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: framework.NFSNodeDaemonSet, Namespace: names.OperandNamespace},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: old}, Template: foreignPodTemplate(old)}}
	ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Create(ctx, ds, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			list, _ := world.Kube.CoreV1().Events(names.OperandNamespace).List(context.Background(), metav1.ListOptions{})
			for _, e := range list.Items {
				t.Logf("event %s %s: %s", e.InvolvedObject.Name, e.Reason, e.Message)
			}
		}
	})
	var original *corev1.PodList
	framework.Eventually(t, framework.DefaultTimeout, "the old DaemonSet's pod on each node", func(ctx context.Context) error {
		original, err = pods.List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(old).String()})
		if err != nil {
			return err
		}
		if len(original.Items) != 2 {
			return fmt.Errorf("%d pods", len(original.Items))
		}
		return nil
	})

	// Every event of the old pods from here on, in order.
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: original.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	adopted, deletedFirst := map[types.UID]bool{}, map[types.UID]bool{}
	go func() {
		for e := range w.ResultChan() {
			pod, ok := e.Object.(*corev1.Pod)
			if !ok || !isOneOf(pod.UID, original) {
				continue
			}
			mu.Lock()
			ref := metav1.GetControllerOf(pod)
			switch {
			case e.Type == watch.Deleted && !adopted[pod.UID]:
				deletedFirst[pod.UID] = true
			case ref != nil && ref.UID != ds.UID && pod.Labels["component"] == "nfs-nodeplugin":
				adopted[pod.UID] = true
			}
			mu.Unlock()
		}
	}()

	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	waitForEvent(t, "WorkloadRecreated", "Its 2 pods were orphaned, not deleted")
	framework.Eventually(t, framework.DefaultTimeout, "the old pods adopted by the operator's DaemonSet", func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if len(deletedFirst) > 0 {
			t.Fatalf("pods %v were deleted before the operator's DaemonSet adopted them", deletedFirst)
		}
		if len(adopted) != 2 {
			return fmt.Errorf("%d of 2 pods adopted", len(adopted))
		}
		return nil
	})
	world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(d *appsv1.DaemonSet) error {
		if d.UID == ds.UID || d.Spec.Selector.MatchLabels["component"] != "nfs-nodeplugin" {
			return fmt.Errorf("not the operator's DaemonSet yet: selector %v", d.Spec.Selector.MatchLabels)
		}
		return nil
	})
	world.WaitForCondition(t, workloadselector.ConditionDegraded, operatorv1.ConditionFalse)
}

func isOneOf(uid types.UID, list *corev1.PodList) bool {
	for _, p := range list.Items {
		if p.UID == uid {
			return true
		}
	}
	return false
}
