// Package statetest has an operator client for tests of writes gated on spec.managementState.
package statetest

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// ManagedFor is client, except that its first reads of the operator's state (every read when reads
// is -1) say Managed; later reads give client's own state. With client Unmanaged it is an admin who
// sets Unmanaged after a sync's first reads.
func ManagedFor(client v1helpers.OperatorClientWithFinalizers, reads int) v1helpers.OperatorClientWithFinalizers {
	return &managedFor{OperatorClientWithFinalizers: client, left: reads}
}

type managedFor struct {
	v1helpers.OperatorClientWithFinalizers
	left int
}

func (m *managedFor) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	spec, status, version, err := m.OperatorClientWithFinalizers.GetOperatorState()
	if m.left == 0 || spec == nil {
		return spec, status, version, err
	}
	if m.left > 0 {
		m.left--
	}
	managed := spec.DeepCopy()
	managed.ManagementState = operatorv1.Managed
	return managed, status, version, err
}
