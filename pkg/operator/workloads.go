package operator

import (
	"slices"

	opv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivercontrollerservicecontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	appsv1 "k8s.io/api/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
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
	// Infrastructures give the infrastructure name (the driver's --cluster-id); Recorder, if set, gets
	// an event when a value read from the cluster is refused (hooks.ClusterValues).
	Infrastructures configv1listers.InfrastructureLister
	Recorder        events.Recorder
	// Flavour, if hosted, places the controller Deployment in the hosted control plane's namespace of
	// the management cluster: its trusted CA and metrics certificate are read from
	// ControllerConfigMaps and ControllerSecrets (informers of that namespace there), its replicas
	// come from the availability policy, its images from the control-plane images, and
	// hosted.ControlPlane.ControllerDeployment transforms it last.
	Flavour              Flavour
	ControllerConfigMaps corev1informers.ConfigMapInformer
	ControllerSecrets    corev1informers.SecretInformer
	// HostedControlPlane, if set, gives the hosted control plane as its HostedControlPlane describes
	// it now (availability policy, node selector, tolerations), in place of Flavour.Hosted; its informer
	// re-runs the controller's hooks when it changes.
	HostedControlPlane         func() (hosted.ControlPlane, error)
	HostedControlPlaneInformer factory.Informer
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
// node DaemonSets: the checked values of the cluster (first: they refuse the workload before anything
// from the cluster is applied), observed proxy, trusted CA, secret hashes, the runtime config's hash
// (node plugin), replicas, topology (--with-topology in topology.mode Zonal), extraMounts, and the
// refusal of unfilled placeholders.
func NewWorkloadHooks(in WorkloadInputs) WorkloadHooks {
	values := &hooks.ClusterValues{Infrastructures: in.Infrastructures, Recorder: in.Recorder}
	controllerMounts, mountInformers := in.Mounts.Deployment(extramounts.ControllerTarget)
	controllerNS, controllerConfigMaps, controllerSecrets := names.OperandNamespace, in.OperandConfigMaps, in.OperandSecrets
	hostedCP := in.Flavour.Hosted
	if hostedCP != nil {
		controllerNS, controllerConfigMaps, controllerSecrets = hostedCP.Namespace, in.ControllerConfigMaps, in.ControllerSecrets
	}
	deploymentHooks := []dc.DeploymentHookFunc{
		values.Deployment(),
		csidrivercontrollerservicecontroller.WithObservedProxyDeploymentHook(),
		csidrivercontrollerservicecontroller.WithCABundleDeploymentHook(controllerNS, hooks.TrustedCAConfigMap, controllerConfigMaps),
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(controllerNS, MetricsCertSecret, controllerSecrets),
		// Hosted too, the guest's driver secret: the provisioner reads it there.
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
	}
	if hostedCP == nil {
		deploymentHooks = append(deploymentHooks, dc.WithReplicasHook(in.Nodes.Lister()))
	}
	deploymentHooks = append(deploymentHooks,
		hooks.Topology{Config: in.Mounts.Config}.Deployment(),
		hooks.DeploymentNoPlaceholders,
		controllerMounts,
	)
	if hostedCP != nil {
		current := func() (hosted.ControlPlane, error) { return *hostedCP, nil }
		if in.HostedControlPlane != nil {
			current = in.HostedControlPlane
		}
		deploymentHooks = append(deploymentHooks, func(_ *opv1.OperatorSpec, d *appsv1.Deployment) error {
			cp, err := current()
			if err != nil {
				return err
			}
			hosted.SetControlPlaneImages(&d.Spec.Template.Spec, in.Flavour.ControlPlaneImages)
			return cp.ControllerDeployment(d)
		})
	}
	// Both workload kinds re-sync on the operand ConfigMaps and Secrets their hooks read (trusted CA,
	// OpenStack CA copy, hashed secrets) and on their hooks' own informers.
	workloadInformers := []factory.Informer{
		hooks.Events(in.OperandConfigMaps.Informer(), hooks.Named(hooks.TrustedCAConfigMap, names.CloudCAConfigMap)),
		hooks.Events(in.OperandSecrets.Informer(), hooks.Named(MetricsCertSecret, names.DriverSecret)),
	}
	controllerInformers := slices.Clone(workloadInformers)
	if hostedCP != nil {
		controllerInformers = append(controllerInformers,
			hooks.Events(controllerConfigMaps.Informer(), hooks.Named(hooks.TrustedCAConfigMap, names.CloudCAConfigMap)),
			hooks.Events(controllerSecrets.Informer(), hooks.Named(MetricsCertSecret)))
		if in.HostedControlPlaneInformer != nil {
			controllerInformers = append(controllerInformers, in.HostedControlPlaneInformer)
		}
	} else {
		controllerInformers = append(controllerInformers, hooks.ControlPlaneNodeEvents(in.Nodes))
	}
	daemonSetHooks := func(target extramounts.Target, more ...csidrivernodeservicecontroller.DaemonSetHookFunc) ([]csidrivernodeservicecontroller.DaemonSetHookFunc, []factory.Informer) {
		mountHook, mountInformers := in.Mounts.DaemonSet(target)
		return append([]csidrivernodeservicecontroller.DaemonSetHookFunc{
			values.DaemonSet(),
			csidrivernodeservicecontroller.WithObservedProxyDaemonSetHook(),
			csidrivernodeservicecontroller.WithCABundleDaemonSetHook(names.OperandNamespace, hooks.TrustedCAConfigMap, in.OperandConfigMaps),
			mountHook,
			hooks.DaemonSetNoPlaceholders,
		}, more...), slices.Concat(workloadInformers, mountInformers)
	}
	w := WorkloadHooks{
		Controller:          deploymentHooks,
		ControllerInformers: slices.Concat(controllerInformers, mountInformers),
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
