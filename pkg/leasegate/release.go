package leasegate

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// Released is the lease as its holder's own release would leave it (client-go's ReleaseOnCancel: no
// holder, one second long, acquired and renewed now, the transitions kept), when it names a holder
// that stopped renewing it (killed, its node lost); false when it is free or live. A predecessor's
// next leader (a rollback) then takes it at once: client-go trusts only its own observation of a
// lease that names a holder, and would wait a full lease duration (137 s under library-go) first.
func Released(lease *coordinationv1.Lease, now time.Time) (*coordinationv1.Lease, bool) {
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return nil, false
	}
	if _, _, live := Live(lease, now); live {
		return nil, false
	}
	out := lease.DeepCopy()
	at := metav1.NewMicroTime(now)
	out.Spec.HolderIdentity = ptr.To("")
	out.Spec.LeaseDurationSeconds = ptr.To[int32](1)
	out.Spec.AcquireTime, out.Spec.RenewTime = &at, &at
	return out, true
}

// ReleaseExpired releases every predecessor lease whose holder stopped renewing it (Released), so
// that the cluster is left as a predecessor's rollback expects it. The update carries the lease's
// resourceVersion: a holder that renews meanwhile wins. A refusal (RBAC) is logged; nothing depends
// on it but the predecessor's start after a rollback.
func (g *Gate) ReleaseExpired(ctx context.Context) {
	for name, lister := range g.listers {
		lease, err := lister.Get(name)
		if err != nil {
			continue
		}
		released, ok := Released(lease, g.clock.Now())
		if !ok {
			continue
		}
		holder := *lease.Spec.HolderIdentity
		if _, err := g.kube.CoordinationV1().Leases(g.namespace).Update(ctx, released, metav1.UpdateOptions{}); err != nil {
			klog.Warningf("Lease %s/%s still names %s, which stopped renewing it; releasing it for the predecessor's next leader: %v", g.namespace, name, holder, err)
			continue
		}
		klog.Infof("Released lease %s/%s, which still named %s though it stopped renewing it: a predecessor started later leads at once", g.namespace, name, holder)
	}
}
