package csoview

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
)

func c(typ string, status operatorv1.ConditionStatus) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: typ, Status: status}
}

const (
	t = operatorv1.ConditionTrue
	f = operatorv1.ConditionFalse
	u = operatorv1.ConditionUnknown
)

func TestView(tt *testing.T) {
	for _, tc := range []struct {
		name                             string
		conditions                       []operatorv1.OperatorCondition
		available, progressing, degraded bool
	}{
		{"nothing: waiting for the operator", nil, false, true, false},
		{"a Disabled of any status is disabled, so available", []operatorv1.OperatorCondition{c("CSIControllerDisabled", f), c("XAvailable", f)}, true, false, false},
		{"all Available True", []operatorv1.OperatorCondition{c("AAvailable", t), c("BAvailable", t), c("AProgressing", f)}, true, false, false},
		{"one Available False, no Progressing known", []operatorv1.OperatorCondition{c("AAvailable", t), c("BAvailable", f)}, false, true, false},
		{"an Unknown Available among True ones reads as not available", []operatorv1.OperatorCondition{c("AAvailable", t), c("BAvailable", u)}, false, true, false},
		{"any Degraded True", []operatorv1.OperatorCondition{c("AAvailable", t), c("ADegraded", t), c("BDegraded", f)}, true, true, true},
		{"Progressing True", []operatorv1.OperatorCondition{c("AAvailable", t), c("AProgressing", t)}, true, true, false},
		{"Degraded types only: no Available, waiting", []operatorv1.OperatorCondition{c("StarterControllerDegraded", f)}, false, true, false},
	} {
		tt.Run(tc.name, func(tt *testing.T) {
			if got := Available(tc.conditions); got != tc.available {
				tt.Errorf("Available = %v, want %v", got, tc.available)
			}
			if got := Progressing(tc.conditions); got != tc.progressing {
				tt.Errorf("Progressing = %v, want %v", got, tc.progressing)
			}
			if got := Degraded(tc.conditions); got != tc.degraded {
				tt.Errorf("Degraded = %v, want %v", got, tc.degraded)
			}
		})
	}
}
