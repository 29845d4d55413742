// Package configcheck reports whether the operator's ConfigMap is valid.
package configcheck

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1informers "k8s.io/client-go/informers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ControllerName prefixes the condition.
const ControllerName = "OperatorConfigController"

// ConditionDegraded is True while ConfigMap manila-csi-driver-operator-config is invalid.
const ConditionDegraded = ControllerName + "Degraded"

// Controller validates the operator's configuration.
//
// Watches: ConfigMap openshift-cluster-csi-drivers/manila-csi-driver-operator-config.
// Writes: condition OperatorConfigControllerDegraded (True naming the field path while the ConfigMap
// is invalid; the last valid configuration stays in force) and an event when the verdict changes.
// Policy: it never edits the ConfigMap.
type Controller struct {
	source         *operatorconfig.Source
	operatorClient v1helpers.OperatorClient
	lastProblem    string
	reported       bool
}

// NewController returns the factory controller; configMaps must be scoped to the operator namespace.
func NewController(source *operatorconfig.Source, operatorClient v1helpers.OperatorClient,
	configMaps corev1informers.ConfigMapInformer, recorder events.Recorder) factory.Controller {
	c := &Controller{source: source, operatorClient: operatorClient}
	return factory.New().
		WithSync(c.sync).
		WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName), configMaps.Informer()).
		WithInformers(operatorClient.Informer()).
		ToController(ControllerName, recorder.WithComponentSuffix("operator-config"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	cfg, problem := c.source.Current()
	cond := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	message := ""
	if problem != nil {
		message = problem.Error()
		if cfg != nil {
			message += "; the last valid configuration stays in force"
		}
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: "InvalidConfig", Message: message}
	}
	if !c.reported || message != c.lastProblem {
		if problem != nil {
			syncCtx.Recorder().Warningf("InvalidOperatorConfig", "%s", message)
		} else if c.reported {
			syncCtx.Recorder().Eventf("OperatorConfigValid", "ConfigMap %s is valid", operatorconfig.ConfigMapName)
		}
		c.reported, c.lastProblem = true, message
	}
	_, _, err := v1helpers.UpdateStatus(ctx, c.operatorClient, v1helpers.UpdateConditionFn(cond))
	return err
}
