package operator

import (
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/runtimeconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/workloadselector"
)

// The writers of conditions on the ClusterCSIDriver, each with the exact types it writes. Each is
// handed to its controllers where they are built, as the client they write through
// (condition.Declared), which refuses a condition of any other type; ownConditions is their union.
var (
	// library-go's controllers of the operator itself (starter.go), each under library-go's own name
	// (ManagementState and ConfigObservation, whatever the instance); the log level's writes none.
	operatorSetWrites = conditiontypes.New(conditiontypes.Degraded("ManagementState", "ConfigObservation"))
	// library-go's controllers of the operand (operand.go), standalone or hosted.
	operandWrites = conditiontypes.New(
		conditiontypes.Workloads(controllerServiceController, nodeServiceController, nfsNodeServiceController),
		conditiontypes.Degraded(staticResourcesController, controlPlaneStaticResourcesController, volumeSnapshotClassController,
			serviceMonitorController, retiredResourcesController, networkPoliciesController))
	// library-go's controllers of the CephFS instance (cephfs.go) write cephFSInstanceConditions.

	// This operator's own controllers (pkg/controllers), each its package's types; the stale
	// conditions and the cephx refusals write none.
	manilaWrites           = conditiontypes.New(manila.ConditionTypes())
	secretSyncWrites       = conditiontypes.New(secretsync.ConditionTypes())
	configCheckWrites      = conditiontypes.New(configcheck.ConditionTypes())
	storageClassWrites     = conditiontypes.New(storageclasses.ConditionTypes())
	runtimeConfigWrites    = conditiontypes.New(runtimeconfig.ConditionTypes())
	workloadSelectorWrites = conditiontypes.New(workloadselector.ConditionTypes())
	cephFSWrites           = conditiontypes.New(cephfs.ConditionTypes())
	noWrites               = conditiontypes.New()
	// The lifecycle's (life.go): a predecessor holding its lease, the --config file, the network
	// policies CSO's RBAC does not allow.
	lifecycleWrites = conditiontypes.New([]string{PredecessorLeaseDegraded, ServingConfigDegraded, NetworkPoliciesUnapplied})
)

// writers are every writer's types, each once.
var writers = []conditiontypes.Set{operatorSetWrites, operandWrites, cephFSInstanceConditions, manilaWrites, secretSyncWrites,
	configCheckWrites, storageClassWrites, runtimeConfigWrites, workloadSelectorWrites, cephFSWrites, lifecycleWrites}

// ownConditions are the exact condition types this operator writes: what a hand-back to a
// predecessor removes (those the predecessor does not write too) and what the removal of a
// predecessor's stale conditions leaves alone.
var ownConditions = conditiontypes.Union(writers...)

// OwnConditions returns every condition type this operator writes (ownConditions), for tests that
// read the ClusterCSIDriver as the operator does.
func OwnConditions() conditiontypes.Set { return ownConditions }
