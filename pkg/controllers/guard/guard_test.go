package guard

import (
	"context"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/utils/clock"
)

func TestPanicBecomesDegraded(t *testing.T) {
	client := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}, &operatorv1.OperatorStatus{}, nil)
	var m map[string]string
	sync := Sync("TestController", client, func(context.Context, factory.SyncContext) error {
		m["x"] = "y" // the planner's old defect: a write into a nil map
		return nil
	})
	err := sync(context.Background(), factory.NewSyncContext("test", events.NewInMemoryRecorder("test", clock.RealClock{})))
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("error %v, want the panic as an error", err)
	}
	_, status, _, _ := client.GetOperatorState()
	c := v1helpers.FindOperatorCondition(status.Conditions, "TestControllerDegraded")
	if c == nil || c.Status != operatorv1.ConditionTrue || c.Reason != "SyncPanic" {
		t.Errorf("condition %+v, want TestControllerDegraded=True (SyncPanic)", c)
	}

	fine := Sync("TestController", client, func(context.Context, factory.SyncContext) error { return nil })
	if err := fine(context.Background(), nil); err != nil {
		t.Errorf("a sync without panic returned %v", err)
	}
}
