// Package csoview reads a ClusterCSIDriver's conditions as cluster-storage-operator (CSO) does when it
// reports the Manila driver in ClusterOperator storage: its CR controller's syncConditions
// (pkg/operator/csidriveroperator/crcontroller.go, the same in CSO main bb8d2fd1, release-4.20
// e8e9de43 and release-4.17 a039f8a2), with library-go's status.UnionCondition matching condition
// types by suffix. The operator uses it to never remove a condition whose going would turn storage
// unavailable, and the tests to read what storage shows.
package csoview

import (
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// Disabled is whether any condition's type ends in Disabled: hasDisabledCondition checks no status,
// so a Disabled=False reads as disabled too (Manila is AllowDisabled in csioperatorclient/manila.go).
func Disabled(conditions []operatorv1.OperatorCondition) bool {
	for _, c := range conditions {
		if strings.HasSuffix(c.Type, "Disabled") {
			return true
		}
	}
	return false
}

// Available is ManilaCSIDriverOperatorCRAvailable's status being True: a Disabled condition makes it
// True (DriverDisabled) whatever else there is; otherwise it is the union of the *Available
// conditions (default True: any False makes it False), and with none, or only Unknown ones, False
// (WaitForOperator).
func Available(conditions []operatorv1.OperatorCondition) bool {
	if Disabled(conditions) {
		return true
	}
	return union(conditions, operatorv1.OperatorStatusTypeAvailable, operatorv1.ConditionTrue) == operatorv1.ConditionTrue
}

// Degraded is ManilaCSIDriverOperatorCRDegraded being True: any *Degraded=True.
func Degraded(conditions []operatorv1.OperatorCondition) bool {
	return union(conditions, operatorv1.OperatorStatusTypeDegraded, operatorv1.ConditionFalse) == operatorv1.ConditionTrue
}

// Progressing is ManilaCSIDriverOperatorCRProgressing being True: any *Progressing=True, or, with no
// Disabled condition, none known at all (WaitForOperator).
func Progressing(conditions []operatorv1.OperatorCondition) bool {
	switch union(conditions, operatorv1.OperatorStatusTypeProgressing, operatorv1.ConditionFalse) {
	case operatorv1.ConditionTrue:
		return true
	case operatorv1.ConditionUnknown:
		return !Disabled(conditions)
	}
	return false
}

// union is library-go's status.UnionCondition without inertia (CSO passes none): with no condition of
// the suffix, Unknown; else, if any has a status other than defaultStatus, the opposite status if
// one has it, or Unknown; else defaultStatus.
func union(conditions []operatorv1.OperatorCondition, suffix string, defaultStatus operatorv1.ConditionStatus) operatorv1.ConditionStatus {
	opposite := operatorv1.ConditionTrue
	if defaultStatus == operatorv1.ConditionTrue {
		opposite = operatorv1.ConditionFalse
	}
	interesting, bad := false, false
	for _, c := range conditions {
		if !strings.HasSuffix(c.Type, suffix) {
			continue
		}
		interesting = true
		if c.Status == opposite {
			return opposite
		}
		bad = bad || c.Status != defaultStatus
	}
	if !interesting || bad {
		return operatorv1.ConditionUnknown
	}
	return defaultStatus
}
