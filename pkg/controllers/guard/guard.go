// Package guard turns a panic in a controller's sync into that controller's Degraded condition, so a
// defect that library-go's worker recovers from is never silent.
package guard

import (
	"context"
	"fmt"
	"runtime/debug"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/klog/v2"
)

// ReasonSyncPanic is the reason of <controller>Degraded after a panic.
const ReasonSyncPanic = "SyncPanic"

// Sync wraps sync: a panic is logged with its stack, sets condition <controller>Degraded=True
// (reason SyncPanic) and is returned as an error, so the sync is retried; the controller's next
// successful sync sets its conditions as usual.
func Sync(controller string, client v1helpers.OperatorClient, sync factory.SyncFunc) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			klog.Errorf("%s: sync panicked: %v\n%s", controller, r, debug.Stack())
			err = fmt.Errorf("%s: sync panicked: %v", controller, r)
			cond := operatorv1.OperatorCondition{Type: controller + "Degraded", Status: operatorv1.ConditionTrue, Reason: ReasonSyncPanic,
				Message: "the sync failed with an internal error (a defect: please report it with the operator log); it is retried"}
			if _, _, uerr := v1helpers.UpdateStatus(ctx, client, v1helpers.UpdateConditionFn(cond)); uerr != nil {
				klog.Errorf("%s: reporting the panic: %v", controller, uerr)
			}
		}()
		return sync(ctx, syncCtx)
	}
}
