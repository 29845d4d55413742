// Package condition is this operator's one way to change conditions on its ClusterCSIDriver: Update
// applies changes (Set, Remove, RemoveWhere) to the status as read and writes it only when they changed
// it, re-reading and deciding again on a conflict while its context lasts. The controllers pass their
// operator client (read from its informer, from the API server after a conflict); the lifecycle,
// whose informers may not run, passes Live.
package condition

import (
	"context"
	"slices"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
)

// Client is what a condition change needs of an operator client: v1helpers.OperatorClient has it.
type Client interface {
	GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error)
	GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error)
	UpdateOperatorStatus(ctx context.Context, resourceVersion string, status *operatorv1.OperatorStatus) (*operatorv1.OperatorStatus, error)
}

// Change changes a status in place (v1helpers.UpdateStatusFunc).
type Change = v1helpers.UpdateStatusFunc

// Set sets cond; its transition time moves only when its status changes.
func Set(cond operatorv1.OperatorCondition) Change { return v1helpers.UpdateConditionFn(cond) }

// Remove removes the condition types.
func Remove(types ...string) Change {
	return RemoveWhere(func([]operatorv1.OperatorCondition) []string { return types }, nil)
}

// RemoveWhere removes the types pick chooses from the conditions being written (so a condition
// changed since an earlier read counts as it is now); removed, when not nil, gets those that were
// there.
func RemoveWhere(pick func([]operatorv1.OperatorCondition) []string, removed *[]string) Change {
	return func(s *operatorv1.OperatorStatus) error {
		types := pick(s.Conditions)
		var gone []string
		s.Conditions = slices.DeleteFunc(s.Conditions, func(c operatorv1.OperatorCondition) bool {
			if slices.Contains(types, c.Type) {
				gone = append(gone, c.Type)
				return true
			}
			return false
		})
		if removed != nil {
			*removed = gone
		}
		return nil
	}
}

// conflictBackoff paces Update's retries after a conflict: 20 tries over about 13 s, bounded by the
// caller's context. client-go's DefaultRetry (five tries in 50 ms, which v1helpers.UpdateStatus uses)
// runs out while a predecessor that just took over writes the status many times a second, and an
// exit's removal would be lost with it.
var conflictBackoff = wait.Backoff{Duration: 20 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 20, Cap: time.Second}

// Update applies changes to the status and writes it when they changed it (true then). The first read
// is client's cached one; after a conflict, while the cache still shows the version that conflicted,
// the status is read from the API server. A missing ClusterCSIDriver is a NotFound error.
func Update(ctx context.Context, client Client, changes ...Change) (bool, error) {
	written, conflicted := false, ""
	err := retry.OnError(conflictBackoff, func(err error) bool { return apierrors.IsConflict(err) && ctx.Err() == nil }, func() error {
		_, old, version, err := client.GetOperatorState()
		if err == nil && version == conflicted {
			_, old, version, err = client.GetOperatorStateWithQuorum(ctx)
		}
		if err != nil {
			return err
		}
		status := old.DeepCopy()
		for _, change := range changes {
			if err := change(status); err != nil {
				return err
			}
		}
		if equality.Semantic.DeepEqual(old, status) {
			written = false
			return nil
		}
		if _, err = client.UpdateOperatorStatus(ctx, version, status); apierrors.IsConflict(err) {
			conflicted = version
		}
		written = err == nil
		return err
	})
	return written, err
}
