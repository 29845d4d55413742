package leasegate

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

func lease(name, holder string, renewed time.Time, seconds int32) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), RenewTime: ptr.To(metav1.NewMicroTime(renewed)),
			LeaseDurationSeconds: ptr.To(seconds)}}
}

func TestLive(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		want  bool
	}{
		{"renewed within its duration", lease("l", "pod-a", now.Add(-10*time.Second), 137), true},
		{"expired", lease("l", "pod-a", now.Add(-138*time.Second), 137), false},
		{"released (client-go empties the holder)", lease("l", "", now, 1), false},
		{"no renew or acquire time", &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("x"), LeaseDurationSeconds: ptr.To[int32](10)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, got := Live(tc.lease, now); got != tc.want {
				t.Errorf("Live = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGateFollowsTheLeases: a held predecessor lease keeps the gate shut until it is released, and a
// lease taken later is seen. (A fake clientset: the gate's own logic; the real handover runs in the
// integration tests.)
func TestGateFollowsTheLeases(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	old := predecessor.CSIDriverManilaOperator.Lease
	kube := fake.NewSimpleClientset(lease(old, "old-pod", time.Now(), 137))
	g := New(kube, "ns", predecessor.All, clock.RealClock{})
	if !g.Start(ctx.Done(), ctx.Done()) {
		t.Fatal("caches did not sync")
	}
	if h, held := g.Held(); !held || h.Identity != "old-pod" || h.Generation.Lease != old {
		t.Fatalf("Held = %+v, %v; want old-pod's lease", h, held)
	}
	long := make(chan Holder, 2)
	done := make(chan error, 1)
	go func() { done <- g.WaitFree(ctx, 0, func(h Holder) { long <- h }) }()
	select {
	case h := <-long:
		if h.Identity != "old-pod" {
			t.Errorf("onLong named %+v, want old-pod", h)
		}
	case <-ctx.Done():
		t.Fatal("onLong was not called while the lease was held")
	}
	released := lease(old, "", time.Now(), 1)
	if _, err := kube.CoordinationV1().Leases("ns").Update(ctx, released, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitFree: %v", err)
	}
	if len(long) != 0 {
		t.Errorf("onLong called %d more times, want once", len(long))
	}
	newer := predecessor.CSIOperator.Lease
	if _, err := kube.CoordinationV1().Leases("ns").Create(ctx, lease(newer, "rollback-pod", time.Now(), 137), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := g.WaitTaken(ctx)
	if err != nil || h.Generation.Lease != newer || h.Identity != "rollback-pod" {
		t.Errorf("WaitTaken = %+v, %v; want rollback-pod's lease %s", h, err, newer)
	}
}

// TestGateWatchesItsGenerationsOnly: a gate of csi-operator's generation (hosted) neither sees nor
// waits for the older operator's lease, and sees its own.
func TestGateWatchesItsGenerationsOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	kube := fake.NewSimpleClientset(lease(predecessor.CSIDriverManilaOperator.Lease, "old-pod", time.Now(), 137))
	g := New(kube, "ns", []predecessor.Generation{predecessor.CSIOperator}, clock.RealClock{})
	if !g.Start(ctx.Done(), ctx.Done()) {
		t.Fatal("caches did not sync")
	}
	if h, held := g.Held(); held {
		t.Fatalf("Held = %+v: a lease of a generation the gate does not watch", h)
	}
	if _, err := kube.CoordinationV1().Leases("ns").Create(ctx, lease(predecessor.CSIOperator.Lease, "new-pod", time.Now(), 137), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h, err := g.WaitTaken(ctx)
	if err != nil || h.Identity != "new-pod" {
		t.Fatalf("WaitTaken = %+v, %v; want new-pod's lease", h, err)
	}
}
