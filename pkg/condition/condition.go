// Package condition is this operator's one way to change conditions on its ClusterCSIDriver: Update
// applies changes (Set, Remove, RemoveWhere) to the status as read and writes it only when they changed
// it, re-reading and deciding again on a conflict while its context lasts. The controllers pass their
// operator client (read from its informer, from the API server after a conflict); the lifecycle,
// whose informers may not run, passes Live.
//
// A change that only removes conditions is sent as a JSON patch, as library-go's
// RemoveStaleConditionsController removes them: it applies only while every condition read still has
// its type at its place, and every Available, Disabled and Degraded its status (what the removal
// decisions read), whatever else others wrote meanwhile. A write of the whole status would conflict
// with every write of anyone else's in between, and a predecessor that has just taken over writes
// many times a second for tens of seconds, its Progressing flipping: a hand-back must not lose that
// race. A patch refused on a status that has not moved since (the refusal was not a race) is written
// as the whole status of that version instead.
package condition

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/apiserver/jsonpatch"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
)

// Client is what a condition change needs of an operator client: an OperatorClient (a Writer) or Live.
type Client interface {
	GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error)
	GetOperatorStateWithQuorum(ctx context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error)
	UpdateOperatorStatus(ctx context.Context, resourceVersion string, status *operatorv1.OperatorStatus) (*operatorv1.OperatorStatus, error)
	PatchOperatorStatus(ctx context.Context, jsonPatch *jsonpatch.PatchSet) error
	Declares(conditionType string) bool
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

// Contended reports whether err is a write that lost its race with other writers after Update's
// retries: a conflict, or a removal whose test failed on a status that moved. Nothing is wrong with
// the writer or the object; the next sync writes again.
func Contended(err error) bool {
	return apierrors.IsConflict(err) || errors.Is(err, errMoved)
}

// Update applies changes to the status and writes it when they changed it (true then): a removal as a
// patch (removalPatch) unless one was refused on this very version, anything else as the whole status
// of the version read. The first read is client's cached one; after a conflict, while the cache still shows the version that conflicted, the
// status is read from the API server. A missing ClusterCSIDriver is a NotFound error; changes that
// add or change a condition of a type client does not declare are an error, and nothing is written
// (any writer may remove others' types: a predecessor's stale ones).
func Update(ctx context.Context, client Client, changes ...Change) (bool, error) {
	written, conflicted, refused := false, "", ""
	retriable := func(err error) bool { return Contended(err) && ctx.Err() == nil }
	err := retry.OnError(conflictBackoff, retriable, func() error {
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
		if t, found := firstUndeclared(old.Conditions, status.Conditions, client.Declares); found {
			return undeclared(t)
		}
		if patch := removalPatch(old.Conditions, status.Conditions); patch != nil && sameButConditions(old, status) && version != refused {
			err = client.PatchOperatorStatus(ctx, patch)
			if apierrors.IsInvalid(err) { // a test of the patch failed: decide again on what is there now
				err, refused = fmt.Errorf("%w: %w", errMoved, err), version
			}
		} else {
			if version == refused {
				// The API server does not say which test failed; log that it was not a race.
				klog.Infof("A removal of conditions was refused on a status nobody has written since (version %s): writing the whole status", version)
			}
			_, err = client.UpdateOperatorStatus(ctx, version, status)
		}
		if Contended(err) {
			conflicted = version
		}
		written = err == nil
		return err
	})
	return written, err
}

// errMoved is a removal patch refused because a condition read is no longer at its place with its
// status.
var errMoved = errors.New("the conditions changed since they were read")

// decisiveKinds are the kinds of condition whose status a removal may be decided on: cluster-storage-
// operator's view (Available, Disabled) and a failing Degraded.
var decisiveKinds = []string{operatorv1.OperatorStatusTypeAvailable, "Disabled", operatorv1.OperatorStatusTypeDegraded}

// removalPatch is the JSON patch that turns the conditions read into kept, when kept is read less some
// of its conditions (nil otherwise): it tests the type of every condition read at its index and the
// status of each of decisiveKinds (what a removal is decided on), then removes from the last index
// down.
func removalPatch(read, kept []operatorv1.OperatorCondition) *jsonpatch.PatchSet {
	var gone []int
	k := 0
	for i, c := range read {
		if k < len(kept) && equality.Semantic.DeepEqual(c, kept[k]) {
			k++
			continue
		}
		gone = append(gone, i)
	}
	if k != len(kept) || len(gone) == 0 {
		return nil
	}
	patch := jsonpatch.New()
	for i, c := range read {
		patch.WithTest(fmt.Sprintf("/status/conditions/%d/type", i), c.Type)
		if slices.ContainsFunc(decisiveKinds, func(k string) bool { return strings.HasSuffix(c.Type, k) }) {
			patch.WithTest(fmt.Sprintf("/status/conditions/%d/status", i), c.Status)
		}
	}
	for _, i := range slices.Backward(gone) {
		at := fmt.Sprintf("/status/conditions/%d", i)
		patch.WithRemove(at, jsonpatch.NewTestCondition(at+"/type", read[i].Type))
	}
	return patch
}

// firstUndeclared is the type of the first condition in want that is not in read as it is there, and
// that declares refuses.
func firstUndeclared(read, want []operatorv1.OperatorCondition, declares func(string) bool) (string, bool) {
	for _, c := range want {
		if was := v1helpers.FindOperatorCondition(read, c.Type); (was == nil || !equality.Semantic.DeepEqual(*was, c)) && !declares(c.Type) {
			return c.Type, true
		}
	}
	return "", false
}

// sameButConditions is whether a and b differ in their conditions only.
func sameButConditions(a, b *operatorv1.OperatorStatus) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	a.Conditions, b.Conditions = nil, nil
	return equality.Semantic.DeepEqual(a, b)
}
