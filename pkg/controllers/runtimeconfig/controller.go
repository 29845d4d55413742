// Package runtimeconfig writes manila-csi-plugin's runtime config: which export location the node
// plugin mounts (the operator config's exportLocations.network).
package runtimeconfig

import (
	"context"
	"errors"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// ControllerName prefixes the controller's condition.
const ControllerName = "RuntimeConfigController"

// ConditionDegraded is True while exportLocations.network: machineNetwork has no single machine network.
const ConditionDegraded = ControllerName + "Degraded"

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string { return []string{ConditionDegraded} }

// Reasons of ConditionDegraded, besides exportlocation's ReasonMachineNetworkUnknown and
// ReasonMachineNetworkAmbiguous.
const ReasonAsExpected = "AsExpected"

// EventExportLocationNetwork is the event sent when the network the node plugin matches changes.
const EventExportLocationNetwork = "ExportLocationNetwork"

// Deps are the Controller's collaborators. Informers: OperatorConfigMaps in the operator namespace,
// OperandConfigMaps in the operand namespace, InstallConfig holding kube-system/cluster-config-v1.
type Deps struct {
	Config             *operatorconfig.Source
	OperatorClient     condition.OperatorClient
	OperatorConfigMaps corev1informers.ConfigMapInformer
	OperandConfigMaps  corev1informers.ConfigMapInformer
	InstallConfig      corev1informers.ConfigMapInformer
	// Namespaces tells whether the operand namespace exists; nothing is written until it does.
	Namespaces corev1informers.NamespaceInformer
	Client     corev1client.CoreV1Interface
	Recorder   events.Recorder
}

// Controller keeps ConfigMap openshift-manila-csi-driver/manila-csi-driver-runtime-config, which the
// node plugin's csi-driver container reads as --runtime-config-file (its hash, added by library-go's
// hook, rolls the node plugin pods when it changes).
//
// Watches: the operator ConfigMap (and the state ConfigMap keeping its last valid version), ConfigMap
// kube-system/cluster-config-v1 (the machine network), its output, the operand namespace and the
// ClusterCSIDriver (spec.managementState).
//
// Writes: the runtime config from the last valid operator config through resourceapply (only
// differences are written); condition RuntimeConfigControllerDegraded; an event when the network the
// node plugin matches changes.
//
// Policy: exportLocations.network unset writes "{}", the driver's default, so that an upgrade moves no
// mount. machineNetwork without a single machine network from the install config is Degraded naming
// the field, and the runtime config is left as it is (absent stays absent: the driver's default).
// It writes nothing while the ClusterCSIDriver is not Managed or the operand namespace does not exist.
type Controller struct {
	d         Deps
	lastCIDR  string
	announced bool
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	return factory.New().
		WithSync(c.sync).
		WithFilteredEventsInformers(factory.NamesFilter(operatorconfig.ConfigMapName, state.ConfigMapName), d.OperatorConfigMaps.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(exportlocation.ConfigMapName), d.OperandConfigMaps.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(machinenetwork.InstallConfigName), d.InstallConfig.Informer()).
		WithFilteredEventsInformers(factory.NamesFilter(names.OperandNamespace), d.Namespaces.Informer()).
		WithInformers(d.OperatorClient.Informer()).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("runtime-config"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	if _, err := c.d.Namespaces.Lister().Get(names.OperandNamespace); apierrors.IsNotFound(err) {
		return nil // the namespace informer brings us back when it appears
	}
	cfg, _ := c.d.Config.Current() // an invalid ConfigMap is configcheck's to report; the last valid one is in force
	if cfg == nil {
		return nil // no valid configuration yet: nothing to say what to write
	}
	sel, err := Select(cfg, c.d.InstallConfig.Lister().ConfigMaps(machinenetwork.InstallConfigNamespace).Get)
	var unresolved *exportlocation.UnresolvedError
	if errors.As(err, &unresolved) {
		return c.applyCondition(ctx, operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue,
			Reason: unresolved.Reason, Message: unresolved.Message + "; the node plugin keeps its current runtime config"})
	} else if err != nil {
		return err
	}
	if _, _, err := resourceapply.ApplyConfigMap(ctx, c.d.Client, syncCtx.Recorder(), ConfigMap(sel)); err != nil {
		return err
	}
	if !c.announced || sel.CIDR != c.lastCIDR {
		syncCtx.Recorder().Eventf(EventExportLocationNetwork, "%s", exportlocation.Describe(sel))
		c.announced, c.lastCIDR = true, sel.CIDR
	}
	return c.applyCondition(ctx, operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse,
		Reason: ReasonAsExpected, Message: exportlocation.Describe(sel)})
}

// Select resolves the configuration's exportLocations.network; getInstallConfig reads ConfigMap
// kube-system/cluster-config-v1 by name (a lister's Get) and is asked only for machineNetwork.
func Select(cfg *operatorconfig.Config, getInstallConfig func(string) (*corev1.ConfigMap, error)) (exportlocation.Selection, error) {
	setting := cfg.ExportLocations.Network
	if setting != exportlocation.Keyword {
		return exportlocation.Resolve(setting, nil)
	}
	cm, err := getInstallConfig(machinenetwork.InstallConfigName)
	switch {
	case apierrors.IsNotFound(err):
		return exportlocation.Resolve(setting, nil)
	case err != nil:
		return exportlocation.Selection{}, err
	}
	data := cm.Data[machinenetwork.InstallConfigKey] // a missing key reads as empty: unknown, and says so
	r := machinenetwork.Resolve(&data, nil)
	return exportlocation.Resolve(setting, &r)
}

// ConfigMap is the runtime config ConfigMap for a selection, labelled as the operator's objects are.
func ConfigMap(sel exportlocation.Selection) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: exportlocation.ConfigMapName, Namespace: names.OperandNamespace,
			Labels: map[string]string{classplan.OwnerLabel: classplan.OwnerLabelValue}},
		Data: map[string]string{exportlocation.Key: exportlocation.RuntimeConfig(sel)},
	}
}

func (c *Controller) applyCondition(ctx context.Context, cond operatorv1.OperatorCondition) error {
	_, err := condition.Update(ctx, c.d.OperatorClient, condition.Set(cond))
	return err
}
