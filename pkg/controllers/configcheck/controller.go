// Package configcheck reports whether the operator's ConfigMap is valid.
package configcheck

import (
	"context"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1informers "k8s.io/client-go/informers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// ControllerName prefixes the condition.
const ControllerName = "OperatorConfigController"

// ConditionDegraded is True while ConfigMap manila-csi-driver-operator-config is invalid.
const ConditionDegraded = ControllerName + "Degraded"

// Reasons of ConditionDegraded.
const (
	ReasonAsExpected    = "AsExpected"
	ReasonInvalidConfig = "InvalidConfig"
)

// Controller validates the operator's configuration.
//
// Watches: ConfigMap openshift-cluster-csi-drivers/manila-csi-driver-operator-config.
// Writes: condition OperatorConfigControllerDegraded (True naming the field path while the ConfigMap
// is invalid; the last valid configuration stays in force), metric config_valid, an event when the
// verdict changes, and, while Managed, the last valid configuration into the operator's state
// ConfigMap so that a restarted operator keeps it.
// Policy: it never edits the admin's ConfigMap.
type Controller struct {
	d           Deps
	lastProblem string
	reported    bool
}

// Deps are the Controller's collaborators. ConfigMaps must be scoped to the operator namespace;
// StateConfigMaps to the state's namespace (hosted: the HCP namespace of the management cluster),
// nil when that is the operator namespace.
type Deps struct {
	Source          *operatorconfig.Source
	State           *state.Store
	OperatorClient  v1helpers.OperatorClient
	ConfigMaps      corev1informers.ConfigMapInformer
	StateConfigMaps corev1informers.ConfigMapInformer
	Recorder        events.Recorder
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	f := factory.New()
	if d.StateConfigMaps != nil {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName), d.ConfigMaps.Informer()).
			WithFilteredEventsInformers(factory.NamesFilter(state.ConfigMapName), d.StateConfigMaps.Informer())
	} else {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, state.ConfigMapName), d.ConfigMaps.Informer())
	}
	return f.
		WithSync(c.sync).
		WithInformers(d.OperatorClient.Informer()).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("operator-config"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	spec, _, _, err := c.d.OperatorClient.GetOperatorState()
	if apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if spec.ManagementState == operatorv1.Managed {
		if raw, ok := c.d.Source.LastValid(); ok {
			if err := c.d.State.Set(ctx, state.OperatorConfigKey, raw); err != nil {
				return err
			}
		}
	}
	cfg, problem := c.d.Source.Current()
	metrics.SetConfigValid(problem == nil)
	cond := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	message := ""
	if problem != nil {
		message = problem.Error()
		if cfg != nil {
			message += "; the last valid configuration stays in force"
		}
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: ReasonInvalidConfig, Message: message}
	}
	if !c.reported || message != c.lastProblem {
		if problem != nil {
			syncCtx.Recorder().Warningf("InvalidOperatorConfig", "%s", message)
		} else if c.reported {
			syncCtx.Recorder().Eventf("OperatorConfigValid", "ConfigMap %s is valid", operatorconfig.ConfigMapName)
		}
		c.reported, c.lastProblem = true, message
	}
	_, _, err = v1helpers.UpdateStatus(ctx, c.d.OperatorClient, v1helpers.UpdateConditionFn(cond))
	return err
}
