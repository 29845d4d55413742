package integration

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// The operator, run in-process, watches the ClusterCSIDriver and writes its status.
func TestOperatorWritesClusterCSIDriverStatus(t *testing.T) {
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	op := world.RunOperator(t)

	cond := world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionFalse)
	if cond.LastTransitionTime.IsZero() {
		t.Errorf("condition %s has no lastTransitionTime", cond.Type)
	}
	if op.Logs.String() == "" {
		t.Errorf("the operator logged nothing; log capture is broken")
	}
}
