package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

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

// setCondition sets one condition directly (the informers may not run yet), retrying on conflicts.
func setCondition(ctx context.Context, c *clients, cond operatorv1.OperatorCondition) error {
	return updateConditions(ctx, c, func(conds *[]operatorv1.OperatorCondition) bool {
		i := slices.IndexFunc(*conds, func(x operatorv1.OperatorCondition) bool { return x.Type == cond.Type })
		if i >= 0 && (*conds)[i].Status == cond.Status && (*conds)[i].Reason == cond.Reason && (*conds)[i].Message == cond.Message {
			return false
		}
		cond.LastTransitionTime = metav1.NewTime(c.clock.Now())
		if i >= 0 {
			if (*conds)[i].Status == cond.Status {
				cond.LastTransitionTime = (*conds)[i].LastTransitionTime
			}
			(*conds)[i] = cond
		} else {
			*conds = append(*conds, cond)
		}
		return true
	})
}

// removeConditions removes the condition types directly, retrying on conflicts.
func removeConditions(ctx context.Context, c *clients, types []string) error {
	_, err := removeConditionsWhere(ctx, c, func([]operatorv1.OperatorCondition) []string { return types })
	return err
}

// removeConditionsWhere removes the types pick chooses from the conditions of the ClusterCSIDriver
// being written (so a condition changed since an earlier read counts as it is now) and returns those
// that were there.
func removeConditionsWhere(ctx context.Context, c *clients, pick func([]operatorv1.OperatorCondition) []string) ([]string, error) {
	var removed []string
	err := updateConditions(ctx, c, func(conds *[]operatorv1.OperatorCondition) bool {
		types := pick(*conds)
		removed = nil
		*conds = slices.DeleteFunc(*conds, func(x operatorv1.OperatorCondition) bool {
			if slices.Contains(types, x.Type) {
				removed = append(removed, x.Type)
				return true
			}
			return false
		})
		return len(removed) > 0
	})
	if errors.Is(err, errNoClusterCSIDriver) {
		return nil, nil // nothing to remove from
	}
	return removed, err
}

// errNoClusterCSIDriver: the ClusterCSIDriver does not exist, so it has no condition to change.
var errNoClusterCSIDriver = errors.New("no ClusterCSIDriver")

// conflictBackoff paces updateConditions' retries after a conflict: 20 tries over about 13 s, bounded by the
// caller's context. client-go's DefaultRetry (five tries in 50 ms) runs out while a predecessor that
// just took over writes the status many times a second, and an exit's removal would be lost with it.
var conflictBackoff = wait.Backoff{Duration: 20 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 20, Cap: time.Second}

// updateConditions changes the ClusterCSIDriver's conditions on the object as read, retried on a
// conflict (re-read and decided again) while ctx lasts.
func updateConditions(ctx context.Context, c *clients, change func(*[]operatorv1.OperatorCondition) bool) error {
	err := retry.OnError(conflictBackoff, func(err error) bool { return apierrors.IsConflict(err) && ctx.Err() == nil }, func() error {
		driver, err := c.clusterCSIDrivers.Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return errNoClusterCSIDriver
		}
		if err != nil {
			return err
		}
		if !change(&driver.Status.Conditions) {
			return nil
		}
		_, err = c.clusterCSIDrivers.UpdateStatus(ctx, driver, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("ClusterCSIDriver %s status: %w", names.CSIDriverName, err)
	}
	return nil
}
