package hooks

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func TestCountControlPlane(t *testing.T) {
	node := func(labels ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		for _, l := range labels {
			n.Labels[l] = ""
		}
		return n
	}
	tests := []struct {
		name  string
		nodes []*corev1.Node
		want  int
	}{
		{"none", nil, 0},
		{"workers only", []*corev1.Node{node("node-role.kubernetes.io/worker")}, 0},
		{"master label", []*corev1.Node{node("node-role.kubernetes.io/master"), node()}, 1},
		{"both labels count once", []*corev1.Node{node("node-role.kubernetes.io/master", "node-role.kubernetes.io/control-plane")}, 1},
		{"three control plane", []*corev1.Node{node("node-role.kubernetes.io/control-plane"), node("node-role.kubernetes.io/control-plane"), node("node-role.kubernetes.io/master")}, 3},
	}
	for _, tt := range tests {
		if got := CountControlPlane(tt.nodes); got != tt.want {
			t.Errorf("%s: CountControlPlane = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestControlPlaneEventsOnly(t *testing.T) {
	worker := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker", Labels: map[string]string{"node-role.kubernetes.io/worker": ""}}}
	master := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "master", Labels: map[string]string{"node-role.kubernetes.io/master": ""}}}
	kube := fake.NewClientset(worker, master)
	nodeFactory := informers.NewSharedInformerFactory(kube, 0)
	infs := []factory.Informer{ControlPlaneNodeEvents(nodeFactory.Core().V1().Nodes())}
	var mu sync.Mutex
	var seen []string
	record := func(what string) func(any) {
		return func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			seen = append(seen, what+" "+obj.(*corev1.Node).Name)
		}
	}
	if _, err := infs[0].AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: record("add"), UpdateFunc: func(_, n any) { record("update")(n) }, DeleteFunc: record("delete"),
	}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	nodeFactory.Start(stop)
	if !cache.WaitForCacheSync(stop, infs[0].HasSynced) {
		t.Fatal("not synced")
	}
	ctx := context.Background()
	nodes := kube.CoreV1().Nodes()
	w, _ := nodes.Get(ctx, "worker", metav1.GetOptions{})
	w.Status.Phase = corev1.NodeRunning // a worker's status update: no event
	if _, err := nodes.UpdateStatus(ctx, w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, _ = nodes.Get(ctx, "worker", metav1.GetOptions{})
	w.Labels["node-role.kubernetes.io/control-plane"] = "" // becomes control plane: an add
	if _, err := nodes.Update(ctx, w, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := nodes.Delete(ctx, "master", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{"add master", "add worker", "delete master"}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) >= len(want), nil
	}); err != nil {
		t.Fatalf("events %v, want %v", seen, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) {
		t.Errorf("events %v, want %v", seen, want)
	}
}
