package operator

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
)

func TestWithoutAvailable(t *testing.T) {
	status := applyoperatorv1.OperatorStatus().WithConditions(
		applyoperatorv1.OperatorCondition().WithType("CephCSIDriverNodeServiceControllerAvailable").WithStatus(operatorv1.ConditionFalse).
			WithReason("Deploying").WithMessage("Waiting for the DaemonSet"),
		applyoperatorv1.OperatorCondition().WithType("ManilaCephFSDriverControllerServiceControllerAvailable").WithStatus(operatorv1.ConditionTrue),
		applyoperatorv1.OperatorCondition().WithType("CephCSIDriverNodeServiceControllerProgressing").WithStatus(operatorv1.ConditionTrue),
	)
	got := withoutAvailable(status)
	want := []struct {
		typ    string
		status operatorv1.ConditionStatus
	}{
		{"CephCSIDriverNodeServiceControllerUnavailableDegraded", operatorv1.ConditionTrue},
		{"ManilaCephFSDriverControllerServiceControllerUnavailableDegraded", operatorv1.ConditionFalse},
		{"CephCSIDriverNodeServiceControllerProgressing", operatorv1.ConditionTrue},
	}
	for i, w := range want {
		c := got.Conditions[i]
		if *c.Type != w.typ || *c.Status != w.status {
			t.Errorf("condition %d: %s=%s, want %s=%s", i, *c.Type, *c.Status, w.typ, w.status)
		}
	}
	if *got.Conditions[0].Reason != "Deploying" || *got.Conditions[0].Message != "Waiting for the DaemonSet" {
		t.Errorf("reason and message not kept: %+v", got.Conditions[0])
	}
	if *status.Conditions[0].Type != "CephCSIDriverNodeServiceControllerAvailable" {
		t.Error("the caller's status was changed")
	}
}
