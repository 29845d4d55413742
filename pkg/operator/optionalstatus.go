package operator

import (
	"context"
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
)

// unavailableDegraded is what an optional instance's <name>Available becomes: <name>UnavailableDegraded.
const unavailableDegraded = "UnavailableDegraded"

// optionalWorkloadConditions are the condition types library-go's Deployment and DaemonSet controllers of
// these names write through optionalInstanceClient: <name>UnavailableDegraded, Progressing and
// Degraded; and <name>Available, which only an earlier release wrote, so that it goes with the rest.
func optionalWorkloadConditions(names ...string) []string {
	return slices.Concat(conditiontypes.Workloads(names...), conditiontypes.Each(names, unavailableDegraded))
}

// optionalInstanceClient is the operator client of an optional driver instance's library-go
// controllers (the CephFS instance): everything they write reaches the ClusterCSIDriver except
// <name>Available, which becomes <name>UnavailableDegraded of the opposite status, reason and message
// kept. cluster-storage-operator's Available is the union of every *Available, so an optional
// instance that cannot run (a wrong ceph-csi image) would otherwise take the whole driver's Available,
// NFS included, with it; it is a Degraded of its own instead. The controllers write their status by
// server-side apply, so an <name>Available an earlier release wrote goes with the next apply.
type optionalInstanceClient struct {
	v1helpers.OperatorClientWithFinalizers
}

func (c optionalInstanceClient) ApplyOperatorStatus(ctx context.Context, fieldManager string, status *applyoperatorv1.OperatorStatusApplyConfiguration) error {
	return c.OperatorClientWithFinalizers.ApplyOperatorStatus(ctx, fieldManager, withoutAvailable(status))
}

// withoutAvailable returns status with each <name>Available turned into <name>UnavailableDegraded.
func withoutAvailable(status *applyoperatorv1.OperatorStatusApplyConfiguration) *applyoperatorv1.OperatorStatusApplyConfiguration {
	if status == nil {
		return nil
	}
	out := *status
	out.Conditions = make([]applyoperatorv1.OperatorConditionApplyConfiguration, len(status.Conditions))
	for i, cond := range status.Conditions {
		if cond.Type != nil && strings.HasSuffix(*cond.Type, operatorv1.OperatorStatusTypeAvailable) {
			typ := strings.TrimSuffix(*cond.Type, operatorv1.OperatorStatusTypeAvailable) + unavailableDegraded
			cond.Type = &typ
			if cond.Status != nil {
				inverted := operatorv1.ConditionFalse
				switch *cond.Status {
				case operatorv1.ConditionFalse:
					inverted = operatorv1.ConditionTrue
				case operatorv1.ConditionUnknown:
					inverted = operatorv1.ConditionUnknown
				}
				cond.Status = &inverted
			}
		}
		out.Conditions[i] = cond
	}
	return &out
}
