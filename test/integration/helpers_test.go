package integration

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// startOperator starts the in-process operator on a clean operand (no workloads, no operator
// StorageClasses), with the given operator config ("" for none), share types and a Managed CR.
func startOperator(t *testing.T, config string, types ...framework.ShareTypeSpec) *framework.RunningOperator {
	t.Helper()
	opts, counter := framework.OperatorOptions()
	return startOperatorWith(t, opts, counter, config, types...)
}

// startOperatorWith is startOperator with the given options.
func startOperatorWith(t *testing.T, opts *operator.Options, counter *framework.RequestCounter, config string, types ...framework.ShareTypeSpec) *framework.RunningOperator {
	t.Helper()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	if config != "" {
		world.WriteOperatorConfig(t, config)
	}
	for _, st := range types {
		createShareType(t, st)
	}
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	return world.RunOperatorWith(t, opts, counter)
}
