package operator

import (
	"context"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/leasegate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// exitWriteTimeout bounds a stopping process's last writes to the ClusterCSIDriver and its read of its
// own pod: the hand-over ends exitMargin before the pod's grace does, to leave them this much.
const exitWriteTimeout = 5 * time.Second

// retryBackoff paces the retries of a failed read or write of the cluster while the process leads:
// an API server rolling during an upgrade, a hosted guest's API down, an access review cut short.
var retryBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 30 * time.Second}

// life is one process's life (lifecycle.go): what each phase does, and what it leaves to the next.
type life struct {
	o  *Options
	cc *controllercmd.ControllerContext
	// stop ends when the process is asked to stop; leading when it stops leading (or stop ends).
	stop, leading context.Context

	s     settings
	f     Flavour
	guest *guestLink
	c     *clients
	gate  *leasegate.Gate
	// stopGate ends the lease gate's informers: they outlive leading, for the hand-over.
	stopGate context.CancelFunc
	// stopControllers ends the informers and controllers that leading started.
	stopControllers context.CancelFunc
	// holder is the predecessor that leads in this operator's place (yielding, handingOver).
	holder leasegate.Holder
	// handingBack is closed when yielding's hand-back to holder ends; handedBack, whether it was done.
	handingBack chan struct{}
	handedBack  bool
}

// run lives through the phases from connecting to done and returns what the process ends with.
func (l *life) run() error {
	defer func() {
		if l.stopControllers != nil {
			l.stopControllers()
		}
		if l.stopGate != nil {
			l.stopGate()
		}
	}()
	p := connecting
	for {
		e, err := l.do(p)
		n, terr := next(p, e)
		if terr != nil {
			return terr
		}
		klog.V(2).Infof("Operator life: %s ended (%s); now %s", p, e, n)
		if n == done {
			return exitError(e, err)
		}
		p = n
	}
}

func (l *life) do(p phase) (event, error) {
	switch p {
	case connecting:
		return l.connect()
	case awaiting:
		return l.await()
	case leading:
		return l.lead()
	case yielding:
		return l.yield()
	case handingOver:
		return l.handOver(), nil
	}
	return evFailed, nil
}

// ended is the event of a phase whose context ended: the process stops, or it lost its lease.
func (l *life) ended() event {
	if l.stop.Err() != nil {
		return evStopping
	}
	return evLeaseLost
}

// retry runs fn until it succeeds, with backoff, logging each failure; false when leading ends first.
func (l *life) retry(what string, fn func(context.Context) error) bool {
	return retryUntil(l.leading, what, fn)
}

// retryUntil is retry until ctx ends.
func retryUntil(ctx context.Context, what string, fn func(context.Context) error) bool {
	err := wait.ExponentialBackoffWithContext(ctx, retryBackoff, func(ctx context.Context) (bool, error) {
		if err := fn(ctx); err != nil {
			if ctx.Err() == nil {
				klog.Errorf("%s (retried): %v", what, err)
			}
			return false, nil
		}
		return true, nil
	})
	return err == nil
}

// connect reads the settings and the guest kubeconfig, builds the clients and starts the lease gate.
func (l *life) connect() (event, error) {
	var err error
	if l.s, err = l.o.settings(); err != nil {
		return evFailed, err
	}
	l.f = l.o.flavour(l.cc.OperatorNamespace)
	var guestConfig *rest.Config
	if l.f.IsHosted() {
		if l.guest, err = l.o.connectGuest(l.leading, l.cc); err != nil {
			return evFailed, err
		}
		if l.guest == nil {
			return l.ended(), nil
		}
		guestConfig = l.guest.file.Config()
	}
	if l.c, err = newClients(l.cc, l.f, guestConfig); err != nil {
		return evFailed, err
	}
	l.gate = leasegate.New(l.c.mgmtKube, l.cc.OperatorNamespace, l.f.Predecessors(), l.c.clock)
	var gateCtx context.Context
	gateCtx, l.stopGate = context.WithCancel(context.Background())
	if !l.gate.Start(gateCtx.Done(), l.leading.Done()) {
		return l.ended(), nil
	}
	return evReady, nil
}

// await returns once the ClusterCSIDriver exists and no predecessor leads, a predecessor's lease left
// by a leader that stopped renewing it released (leasegate.Released). A predecessor that keeps
// its lease longer than PredecessorGrace is reported as PredecessorLeaseDegraded=True naming the
// lease and its holder, removed once it lets go (also when this process reported nothing: an earlier
// one may have).
func (l *life) await() (event, error) {
	waiting := false
	if !l.retry("Waiting for ClusterCSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
		_, err := l.c.clusterCSIDrivers.Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && !waiting {
			waiting = true
			klog.Infof("ClusterCSIDriver %s does not exist yet: this operator waits for it", names.CSIDriverName)
		}
		return err
	}) {
		return l.ended(), nil
	}
	// The report is retried beside the wait, not in it: a predecessor that lets go is seen at once.
	reporting, stopReporting := context.WithCancel(l.leading)
	reported := make(chan struct{})
	close(reported)
	err := l.gate.WaitFree(l.leading, l.o.PredecessorGrace, func(h leasegate.Holder) {
		msg := h.Describe(l.gate.Namespace()) + ": this operator manages nothing until that leader stops."
		klog.Warning(msg)
		reported = make(chan struct{})
		go func() {
			defer close(reported)
			retryUntil(reporting, "Reporting the predecessor's lease on ClusterCSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
				return setCondition(ctx, l.c, predecessorLeaseCondition(msg))
			})
		}()
	})
	stopReporting()
	<-reported // before the removal below, so that a late report cannot outlive it
	if err != nil {
		l.clearPredecessorLeaseOnExit()
		return l.ended(), nil
	}
	l.gate.ReleaseExpired(l.leading)
	if !l.clearPredecessorLease(l.leading) {
		return l.ended(), nil
	}
	return evReady, nil
}

// clearPredecessorLease removes PredecessorLeaseDegraded, retried until ctx ends; false if it ends
// first.
func (l *life) clearPredecessorLease(ctx context.Context) bool {
	return retryUntil(ctx, "Clearing "+PredecessorLeaseDegraded+" on ClusterCSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
		return removeConditions(ctx, l.c, []string{PredecessorLeaseDegraded})
	})
}

// clearPredecessorLeaseOnExit removes PredecessorLeaseDegraded as the process ends while it waits:
// it says what this process is doing (nothing, because a predecessor leads), which stops being true
// with the process, and nobody else removes it.
func (l *life) clearPredecessorLeaseOnExit() {
	ctx, cancel := context.WithTimeout(context.Background(), exitWriteTimeout)
	defer cancel()
	l.clearPredecessorLease(ctx)
}

// lead starts the informers and controllers (wiring.start) and runs them until a predecessor
// takes its lease, the process stops, or it loses its lease.
func (l *life) lead() (event, error) {
	ctx, cancel := context.WithCancel(l.leading)
	l.stopControllers = cancel
	started, err := wiring{o: l.o, cc: l.cc, s: l.s, f: l.f, c: l.c, guest: l.guest}.start(ctx)
	switch {
	case err != nil:
		return evFailed, err
	case !started:
		return l.ended(), nil
	}
	h, err := l.gate.WaitTaken(l.leading)
	if err != nil {
		return l.ended(), nil
	}
	l.holder = h
	return evPredecessorLeads, nil
}

// yield stops the controllers at once, hands the ClusterCSIDriver back to the predecessor that leads
// (handBackUntilSettled, in the background) and waits for that predecessor to let go.
func (l *life) yield() (event, error) {
	l.stopControllers()
	klog.Warningf("%s: this operator's controllers stopped; it hands the ClusterCSIDriver back", l.holder.Describe(l.gate.Namespace()))
	l.handingBack = make(chan struct{})
	go func() {
		defer close(l.handingBack)
		l.handedBack = l.handBackUntilSettled(l.leading, handBackSettle)
	}()
	if err := l.gate.WaitFree(l.leading, 0, func(leasegate.Holder) {}); err != nil {
		return l.ended(), nil
	}
	return evPredecessorLetGo, nil
}

// handOver stops the controllers and, when a predecessor leads or a rollout to another image replaces
// this pod (as cluster-storage-operator's swap to a predecessor's image does: the new pod may be
// running before it leads), hands the ClusterCSIDriver back to that predecessor: for as long as the
// pod's grace allows (its deletion timestamp less exitMargin), and no longer than HandOverWait.
// What is still this operator's when a predecessor leads and the wait is over goes anyway
// (removeUnconfirmed): the process that wrote it ends here and nobody else would remove it. With no
// predecessor it returns at once: this operator's next process, if any, takes its lease as soon as
// this one releases it, and finds its conditions as they were.
func (l *life) handOver() event {
	l.stopControllers()
	if l.handingBack != nil {
		<-l.handingBack // yielding's hand-back ends with leading
	}
	if l.handedBack {
		l.removeUnconfirmed() // a removal reported written may not be there (a warm run's hosted swap)
		return evReady
	}
	if l.o.HandOverWait <= 0 {
		if h, held := l.gate.Held(); held {
			l.holder = h
			l.removeUnconfirmed()
		} else {
			klog.Infof("Stopping: no predecessor leads and no rollout replaces this pod, nothing to hand over")
		}
		return evReady
	}
	readCtx, cancelRead := context.WithTimeout(context.Background(), exitWriteTimeout)
	pod := ownPod(readCtx, l.c.mgmtKube, l.gate.Namespace())
	cancelRead()
	deadline := handOverDeadline(pod, l.c.clock.Now(), l.o.HandOverWait)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	h, held := l.gate.Held()
	if !held {
		if !replacedByRollout(ctx, l.c.mgmtKube, pod) {
			klog.Infof("Stopping: no predecessor leads and no rollout replaces this pod, nothing to hand over")
			return evReady
		}
		klog.Infof("Stopping after a rollout: waiting until %s for the next leader", deadline.Format(time.RFC3339))
		if h, held = l.awaitNextLeader(ctx); !held {
			klog.Infof("Stopping: no predecessor led by %s, nothing handed over", deadline.Format(time.RFC3339))
			return evReady
		}
	}
	l.holder = h
	// Repeated for a few seconds: a sync running as the controllers stopped may still write. Then,
	// whatever it reported, what is still this operator's goes: a removal reported written at the
	// deadline was not on the ClusterCSIDriver in a warm run's hosted swap.
	l.handBackUntilSettled(ctx, 5*time.Second)
	l.removeUnconfirmed()
	return evReady
}

// removeUnconfirmed removes every condition of this operator's that the leading predecessor does not
// write, though the predecessor has not yet written its own view: cluster-storage-operator then reads
// what is true (the predecessor has not reported yet) instead of a view nobody keeps up any more. An
// event names what went.
func (l *life) removeUnconfirmed() {
	ctx, cancel := context.WithTimeout(context.Background(), exitWriteTimeout)
	defer cancel()
	g := l.holder.Generation
	removed, err := removeConditionsWhere(ctx, l.c, func(conds []operatorv1.OperatorCondition) []string {
		return predecessor.OursLeft(conds, ownConditions, g)
	})
	if err != nil {
		klog.Errorf("Stopping while %s leads: removing this operator's conditions from ClusterCSIDriver %s: %v", g.Name, names.CSIDriverName, err)
		return
	}
	if len(removed) == 0 {
		return
	}
	msg := fmt.Sprintf("Stopping while %s leads and before it wrote its own conditions: removed this operator's conditions %v unconfirmed", g.Name, removed)
	klog.Warning(msg)
	recorder := newRecorder(ctx, l.c.kube, names.OperatorName, l.c.clock, l.f.IsHosted())
	// Shut down first: a recorder that is shutting down creates the event before it returns, and the
	// process is about to exit.
	recorder.Shutdown()
	recorder.Warning("HandBackUnconfirmed", msg)
}

// awaitNextLeader waits for whoever leads after a rollout: a predecessor (returned) or this
// operator's own next process (its lease taken by another holder: nothing to hand over).
func (l *life) awaitNextLeader(ctx context.Context) (leasegate.Holder, bool) {
	var h leasegate.Holder
	var held bool
	_ = wait.PollUntilContextCancel(ctx, handBackPoll/4, true, func(ctx context.Context) (bool, error) {
		if h, held = l.gate.Held(); held {
			return true, nil
		}
		return l.successorLeads(ctx), nil
	})
	return h, held
}

// successorLeads is whether another process of this operator holds its lease now.
func (l *life) successorLeads(ctx context.Context) bool {
	lease, err := l.c.mgmtKube.CoordinationV1().Leases(l.gate.Namespace()).Get(ctx, names.OperatorName+"-lock", metav1.GetOptions{})
	if err != nil {
		return false
	}
	holder, _, live := leasegate.Live(lease, l.c.clock.Now())
	return live && holder != l.o.identity
}
