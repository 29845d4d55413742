package operator

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

const (
	servingConfigOwner = "ServingConfig"
	// ServingConfigDegraded is True while the --config file could not be used (Options.ServingConfigProblem).
	ServingConfigDegraded      = servingConfigOwner + "Degraded"
	ReasonInvalidServingConfig = "InvalidGenericOperatorConfig"
)

// reportServingConfig sets ServingConfigDegraded from Options.ServingConfigProblem, or removes it.
func (o *Options) reportServingConfig(ctx context.Context, c *clients) error {
	if o.ServingConfigProblem == "" {
		return removeConditions(ctx, c, []string{ServingConfigDegraded})
	}
	return setCondition(ctx, c, operatorv1.OperatorCondition{Type: ServingConfigDegraded, Status: operatorv1.ConditionTrue,
		Reason: ReasonInvalidServingConfig, Message: o.ServingConfigProblem + " (cluster-storage-operator's ConfigMap " +
			names.OperatorNamespace + "/manila-csi-driver-operator-config, key config.yaml): the endpoint serves with library-go's defaults until it is fixed"})
}
