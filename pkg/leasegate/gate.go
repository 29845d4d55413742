// Package leasegate keeps this operator from leading while one of OpenShift's own Manila operators
// does. The predecessors hold their own leases (predecessor.Generation.Lease), not this operator's: a
// rolling update of cluster-storage-operator's Deployment from one image to the other runs both
// pods at once, and each would otherwise lead. The gate never takes one, so a predecessor started later
// (a rollback) leads at once and this operator steps aside; it only releases one whose holder stopped
// renewing it (ReleaseExpired), as that holder's own release would have.
package leasegate

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	coordinationlisters "k8s.io/client-go/listers/coordination/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// recheck is how often a held lease is looked at again without an event: a lease that stops being
// renewed expires without a write, so without a watch event.
const recheck = time.Second

// Gate watches the predecessors' leases in one namespace, each through an informer of that one name.
type Gate struct {
	kube      kubernetes.Interface
	namespace string
	// generations are the watched ones, oldest first; listers holds each one's lease, by name.
	generations []predecessor.Generation
	listers     map[string]coordinationlisters.LeaseNamespaceLister
	factories   []informers.SharedInformerFactory
	clock       clock.PassiveClock
	changed     chan struct{}
}

// New returns a gate on the leases of the generations in namespace.
func New(kube kubernetes.Interface, namespace string, generations []predecessor.Generation, clk clock.PassiveClock) *Gate {
	g := &Gate{kube: kube, namespace: namespace, generations: generations, listers: map[string]coordinationlisters.LeaseNamespaceLister{}, clock: clk,
		changed: make(chan struct{}, 1)}
	notify := func(any) {
		select {
		case g.changed <- struct{}{}:
		default:
		}
	}
	for _, p := range generations {
		f := informercache.Named(kube, namespace, p.Lease)
		leases := f.Coordination().V1().Leases()
		_, _ = leases.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: notify,
			UpdateFunc: func(_, o any) { notify(o) }, DeleteFunc: notify})
		g.listers[p.Lease] = leases.Lister().Leases(namespace)
		g.factories = append(g.factories, f)
	}
	return g
}

// Start starts the informers until stop closes and waits for their caches; false if wait closed first.
func (g *Gate) Start(stop, wait <-chan struct{}) bool {
	for _, f := range g.factories {
		f.Start(stop)
		for _, synced := range f.WaitForCacheSync(wait) {
			if !synced {
				return false
			}
		}
	}
	return true
}

// Namespace is where the leases are.
func (g *Gate) Namespace() string { return g.namespace }

// Holder is a predecessor's lease held by a leader that renews it.
type Holder struct {
	Generation predecessor.Generation
	Identity   string
	RenewTime  time.Time
}

// Describe names the lease and its holder, for a condition or an event.
func (h Holder) Describe(namespace string) string {
	return fmt.Sprintf("Lease %s/%s is held by %q of %s (renewed at %s)", namespace, h.Generation.Lease, h.Identity,
		h.Generation.Name, h.RenewTime.UTC().Format(time.RFC3339))
}

// Held returns a predecessor lease that a leader holds now, if any.
func (g *Gate) Held() (Holder, bool) {
	for _, p := range g.generations {
		lease, err := g.listers[p.Lease].Get(p.Lease)
		if err != nil {
			continue // NotFound: never led here, or deleted
		}
		if identity, renewed, live := Live(lease, g.clock.Now()); live {
			return Holder{Generation: p, Identity: identity, RenewTime: renewed}, true
		}
	}
	return Holder{}, false
}

// Live is whether a leader holds the lease at now: it names a holder and was renewed less than its
// duration ago. client-go's release empties the holder, so a released lease is free at once.
func Live(lease *coordinationv1.Lease, now time.Time) (identity string, renewed time.Time, live bool) {
	s := lease.Spec
	if s.HolderIdentity == nil || *s.HolderIdentity == "" || s.LeaseDurationSeconds == nil {
		return "", time.Time{}, false
	}
	switch {
	case s.RenewTime != nil:
		renewed = s.RenewTime.Time
	case s.AcquireTime != nil:
		renewed = s.AcquireTime.Time
	default:
		return "", time.Time{}, false
	}
	return *s.HolderIdentity, renewed, now.Before(renewed.Add(time.Duration(*s.LeaseDurationSeconds) * time.Second))
}

// WaitFree returns once no predecessor lease is held (nil), or ctx's error. If it has waited longer
// than long, it calls onLong once with the holder.
func (g *Gate) WaitFree(ctx context.Context, long time.Duration, onLong func(Holder)) error {
	start := g.clock.Now()
	reported := false
	return g.wait(ctx, func() bool {
		h, held := g.Held()
		if held && !reported && g.clock.Since(start) > long {
			reported = true
			onLong(h)
		}
		return !held
	})
}

// WaitTaken returns the first predecessor lease found held, or ctx's error.
func (g *Gate) WaitTaken(ctx context.Context) (Holder, error) {
	var h Holder
	err := g.wait(ctx, func() bool {
		var held bool
		h, held = g.Held()
		return held
	})
	return h, err
}

// wait checks done on every lease event and every recheck, until it is true or ctx ends.
func (g *Gate) wait(ctx context.Context, done func() bool) error {
	t := time.NewTicker(recheck)
	defer t.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-g.changed:
		case <-t.C:
		}
	}
	return nil
}
