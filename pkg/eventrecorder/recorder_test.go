package eventrecorder

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
)

func TestComponentsShareOneBroadcaster(t *testing.T) {
	client := fake.NewClientset()
	about := &corev1.ObjectReference{Kind: "Deployment", Namespace: "ns", Name: "op", APIVersion: "apps/v1"}
	base := New(client.CoreV1().Events("ns"), record.CorrelatorOptions{}, "op", about, clock.RealClock{})
	defer base.Shutdown()

	before := runtime.NumGoroutine()
	for i := 0; i < 30; i++ {
		base.WithComponentSuffix(fmt.Sprintf("controller-%d", i)).Eventf("Synced", "controller %d", i)
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Errorf("30 component recorders started %d goroutines; they must share the broadcaster", after-before)
	}
	base.ForComponent("other").Warning("Broken", "field x")

	var got map[string]corev1.Event
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.CoreV1().Events("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		got = map[string]corev1.Event{}
		for _, e := range list.Items {
			got[e.Source.Component] = e
		}
		return len(got) == 31, nil
	})
	if err != nil {
		t.Fatalf("%d of 31 components' events arrived: %v", len(got), err)
	}
	if e := got["op-controller-7"]; e.Message != "controller 7" || e.InvolvedObject.Name != "op" || e.Type != corev1.EventTypeNormal {
		t.Errorf("event of op-controller-7: %+v", e)
	}
	if e := got["other"]; e.Type != corev1.EventTypeWarning || e.Reason != "Broken" {
		t.Errorf("event of other: %+v", e)
	}
}

func TestEventsAfterShutdownAreCreatedDirectly(t *testing.T) {
	client := fake.NewClientset()
	r := New(client.CoreV1().Events("ns"), record.CorrelatorOptions{}, "op",
		&corev1.ObjectReference{Kind: "Deployment", Namespace: "ns", Name: "op"}, clock.RealClock{})
	r.Shutdown()
	r.WithComponentSuffix("late").Warning("Late", "after shutdown")
	list, err := client.CoreV1().Events("ns").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Reason != "Late" || list.Items[0].Source.Component != "op-late" {
		t.Fatalf("events after shutdown: %+v", list.Items)
	}
}
