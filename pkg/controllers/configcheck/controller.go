// Package configcheck reports whether the operator's ConfigMap is valid.
package configcheck

import (
	"context"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// ControllerName prefixes the condition.
const ControllerName = "OperatorConfigController"

// ConditionDegraded is True while ConfigMap manila-csi-driver-operator-settings is invalid.
const ConditionDegraded = ControllerName + "Degraded"

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string { return []string{ConditionDegraded} }

// Reasons of ConditionDegraded.
const (
	ReasonAsExpected    = "AsExpected"
	ReasonInvalidConfig = "InvalidConfig"
)

// Controller validates the operator's configuration.
//
// Watches: ConfigMaps openshift-cluster-csi-drivers/manila-csi-driver-operator-settings and, while
// that does not exist, the legacy manila-csi-driver-operator-config (ignored when it holds
// cluster-storage-operator's GenericOperatorConfig).
// Writes: condition OperatorConfigControllerDegraded (True naming the field path while the ConfigMap
// is invalid; the last valid configuration stays in force), metric config_valid, an event when the
// verdict changes, and, while Managed, the last valid configuration into the operator's state
// ConfigMap so that a restarted operator keeps it; while Managed, a valid legacy configuration is
// copied once to the new name (event OperatorConfigMigrated).
// Policy: it never edits or deletes the admin's ConfigMaps (the legacy one stays as it was).
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
	OperatorClient  condition.OperatorClient
	ConfigMaps      corev1informers.ConfigMapInformer
	StateConfigMaps corev1informers.ConfigMapInformer
	// Client creates ConfigMap operatorconfig.ConfigMapName from the legacy one (standalone; nil:
	// nothing to migrate).
	Client   corev1client.ConfigMapsGetter
	Recorder events.Recorder
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	f := factory.New()
	if d.StateConfigMaps != nil {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName), d.ConfigMaps.Informer()).
			WithFilteredEventsInformers(factory.NamesFilter(state.ConfigMapName), d.StateConfigMaps.Informer())
	} else {
		f = f.WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, operatorconfig.LegacyConfigMapName, state.ConfigMapName), d.ConfigMaps.Informer())
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
		if err := c.migrate(ctx, syncCtx.Recorder()); err != nil {
			return err
		}
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
	_, err = condition.Update(ctx, c.d.OperatorClient, condition.Set(cond))
	return err
}

// migrate copies a valid configuration of the legacy ConfigMap to ConfigMap
// operatorconfig.ConfigMapName, once: from then on the legacy name is not read.
func (c *Controller) migrate(ctx context.Context, recorder events.Recorder) error {
	raw, ok := c.d.Source.Legacy()
	if !ok || c.d.Client == nil {
		return nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: operatorconfig.ConfigMapName, Namespace: names.OperatorNamespace},
		Data: map[string]string{operatorconfig.Key: raw}}
	_, err := c.d.Client.ConfigMaps(names.OperatorNamespace).Create(ctx, cm, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil
	case err != nil:
		return fmt.Errorf("copying ConfigMap %s to %s: %w", operatorconfig.LegacyConfigMapName, operatorconfig.ConfigMapName, err)
	}
	recorder.Eventf("OperatorConfigMigrated", "Copied the operator configuration from ConfigMap %s/%s to %s/%s, where it is read from now on: cluster-storage-operator owns the old name",
		names.OperatorNamespace, operatorconfig.LegacyConfigMapName, names.OperatorNamespace, operatorconfig.ConfigMapName)
	return nil
}
