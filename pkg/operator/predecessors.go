package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// PredecessorLeaseDegraded is True while a predecessor's leader has kept its lease for longer than
// Options.PredecessorGrace, so that this operator manages nothing.
const (
	predecessorLeaseOwner    = "PredecessorLease"
	PredecessorLeaseDegraded = predecessorLeaseOwner + "Degraded"
	ReasonPredecessorHoldsIt = "PredecessorHoldsLease"
	// handBackPoll is how often a stepped-aside operator looks for the predecessor's Available.
	handBackPoll = 2 * time.Second
	// handBackSettle is how long the hand-back is repeated: longer than any sync of a stopped
	// controller (library-go gives them 10 s to finish on a shutdown).
	handBackSettle = 30 * time.Second
)

// errPredecessorLetGo ends the process after a predecessor led and stopped: a new process takes over
// from the start (informers and controllers cannot be started twice in one process).
var errPredecessorLetGo = errors.New("a predecessor that led in this operator's place let go of its lease")

// predecessorLeaseCondition is PredecessorLeaseDegraded=True with msg.
func predecessorLeaseCondition(msg string) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: PredecessorLeaseDegraded, Status: operatorv1.ConditionTrue,
		Reason: ReasonPredecessorHoldsIt, Message: msg}
}

// handBackUntilSettled hands the ClusterCSIDriver back to the predecessor that leads (handBack) and
// repeats it until settle has passed since it started, so that a sync that was running as the
// controllers stopped cannot write a condition afterwards; false when ctx ends first.
func (l *life) handBackUntilSettled(ctx context.Context, settle time.Duration) bool {
	start := l.c.clock.Now()
	err := wait.PollUntilContextCancel(ctx, handBackPoll, true, func(ctx context.Context) (bool, error) {
		return handBack(ctx, l.c, l.holder.Generation) && l.c.clock.Since(start) > settle, nil
	})
	return err == nil
}

// handBack removes this operator's conditions that generation g does not write, as far as
// predecessor.StaleAfterHandBack allows on the status being written (a condition the predecessor
// writes meanwhile is seen by the retry on conflict); true once none is left.
func handBack(ctx context.Context, c *clients, g predecessor.Generation) bool {
	var left []string
	removed, err := removeConditionsWhere(ctx, c, func(conds []operatorv1.OperatorCondition) []string {
		left = predecessor.OursLeft(conds, ownConditions, g)
		return predecessor.StaleAfterHandBack(conds, ownConditions, g)
	})
	if err != nil {
		klog.Errorf("Handing ClusterCSIDriver %s back to %s: %v", names.CSIDriverName, g.Name, err)
		return false
	}
	if len(removed) > 0 {
		klog.Infof("Handed ClusterCSIDriver %s back to %s: removed this operator's conditions %v", names.CSIDriverName, g.Name, removed)
	}
	return len(removed) == len(left)
}

// liveStatus is the ClusterCSIDriver's status as the lifecycle changes it: read from the API server,
// since its informers may not run.
func (c *clients) liveStatus(ctx context.Context) condition.Client {
	return condition.Live(ctx, c.clusterCSIDrivers, names.CSIDriverName, lifecycleWrites)
}

// setCondition sets one condition.
func setCondition(ctx context.Context, c *clients, cond operatorv1.OperatorCondition) error {
	if _, err := condition.Update(ctx, c.liveStatus(ctx), condition.Set(cond)); err != nil {
		return fmt.Errorf("ClusterCSIDriver %s status: %w", names.CSIDriverName, err)
	}
	return nil
}

// removeConditions removes the condition types.
func removeConditions(ctx context.Context, c *clients, types []string) error {
	_, err := removeConditionsWhere(ctx, c, func([]operatorv1.OperatorCondition) []string { return types })
	return err
}

// removeConditionsWhere removes the types pick chooses from the conditions being written and returns
// those that were there; without a ClusterCSIDriver there is nothing to remove.
func removeConditionsWhere(ctx context.Context, c *clients, pick func([]operatorv1.OperatorCondition) []string) ([]string, error) {
	var removed []string
	_, err := condition.Update(ctx, c.liveStatus(ctx), condition.RemoveWhere(pick, &removed))
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ClusterCSIDriver %s status: %w", names.CSIDriverName, err)
	}
	return removed, nil
}
