package operator

import (
	"slices"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivercontrollerservicecontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	corev1informers "k8s.io/client-go/informers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// MetricsCertSecret is the serving-cert Secret service-ca issues for the operand's metrics Service;
// its hash rolls the controller pods.
const MetricsCertSecret = "manila-csi-driver-controller-metrics-serving-cert"

// WorkloadInputs are the informers the operand workloads' hooks read. The operator passes its running
// informers; `render` passes informers it fills from files and never starts.
type WorkloadInputs struct {
	// OperandConfigMaps and OperandSecrets are of the operand namespace (trusted CA, hashed secrets).
	OperandConfigMaps corev1informers.ConfigMapInformer
	OperandSecrets    corev1informers.SecretInformer
	// Nodes count the control plane for the controller's replicas (those its node selector matches).
	Nodes  corev1informers.NodeInformer
	Mounts hooks.Mounts
}

// WorkloadHooks are the hooks of each operand workload, in the order they run after library-go's
// built-in ones, with the informers whose events re-run them (beyond library-go's one-minute resync).
type WorkloadHooks struct {
	Controller          []dc.DeploymentHookFunc
	ControllerInformers []factory.Informer
	Node, NFSNode       []csidrivernodeservicecontroller.DaemonSetHookFunc
	NodeInformers       []factory.Informer
	NFSNodeInformers    []factory.Informer
}

// NewWorkloadHooks returns the hooks the operator applies to the controller Deployment and the two
// node DaemonSets: observed proxy, trusted CA, secret hashes, the runtime config's hash (node plugin),
// replicas, topology (--with-topology in topology.mode Zonal), extraMounts, and the refusal of
// unfilled placeholders.
func NewWorkloadHooks(in WorkloadInputs) WorkloadHooks {
	controllerMounts, mountInformers := in.Mounts.Deployment(extramounts.ControllerTarget)
	deploymentHooks := []dc.DeploymentHookFunc{
		csidrivercontrollerservicecontroller.WithObservedProxyDeploymentHook(),
		csidrivercontrollerservicecontroller.WithCABundleDeploymentHook(names.OperandNamespace, hooks.TrustedCAConfigMap, in.OperandConfigMaps),
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, MetricsCertSecret, in.OperandSecrets),
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
		dc.WithReplicasHook(in.Nodes.Lister()),
		hooks.Topology{Config: in.Mounts.Config}.Deployment(),
		hooks.DeploymentNoPlaceholders,
		controllerMounts,
	}
	// Both workload kinds re-sync on the operand ConfigMaps and Secrets their hooks read (trusted CA,
	// OpenStack CA copy, hashed secrets) and on their hooks' own informers.
	workloadInformers := []factory.Informer{
		hooks.Events(in.OperandConfigMaps.Informer(), hooks.Named(hooks.TrustedCAConfigMap, names.CloudCAConfigMap)),
		hooks.Events(in.OperandSecrets.Informer(), hooks.Named(MetricsCertSecret, names.DriverSecret)),
	}
	daemonSetHooks := func(target extramounts.Target, more ...csidrivernodeservicecontroller.DaemonSetHookFunc) ([]csidrivernodeservicecontroller.DaemonSetHookFunc, []factory.Informer) {
		mountHook, mountInformers := in.Mounts.DaemonSet(target)
		return append([]csidrivernodeservicecontroller.DaemonSetHookFunc{
			csidrivernodeservicecontroller.WithObservedProxyDaemonSetHook(),
			csidrivernodeservicecontroller.WithCABundleDaemonSetHook(names.OperandNamespace, hooks.TrustedCAConfigMap, in.OperandConfigMaps),
			mountHook,
			hooks.DaemonSetNoPlaceholders,
		}, more...), slices.Concat(workloadInformers, mountInformers)
	}
	w := WorkloadHooks{
		Controller:          deploymentHooks,
		ControllerInformers: slices.Concat(workloadInformers, mountInformers, []factory.Informer{hooks.ControlPlaneNodeEvents(in.Nodes)}),
	}
	w.Node, w.NodeInformers = daemonSetHooks(extramounts.NodeTarget,
		csidrivernodeservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
		// The driver re-reads the file on every NodeStage, and the kubelet refreshes a ConfigMap volume
		// within a minute or so; the hash rolls the pods so that a change is in force at once and shows.
		csidrivernodeservicecontroller.WithConfigMapHashAnnotationHook(names.OperandNamespace, exportlocation.ConfigMapName, in.OperandConfigMaps),
		hooks.Topology{Config: in.Mounts.Config}.DaemonSet())
	w.NodeInformers = append(w.NodeInformers, hooks.Events(in.OperandConfigMaps.Informer(), hooks.Named(exportlocation.ConfigMapName)))
	w.NFSNode, w.NFSNodeInformers = daemonSetHooks(extramounts.NFSNodeTarget)
	return w
}
