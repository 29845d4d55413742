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

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// MetricsCertSecret is the serving-cert Secret service-ca issues for the operand's metrics Service
// (named in its asset); its hash rolls the controller pods.
var MetricsCertSecret = assets.ServingCertSecret(assets.MetricsService)

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

// InstanceSpec is what one driver instance's workloads add to the hooks both instances share
// (instanceHooks).
type InstanceSpec struct {
	// ControllerAsset and ControllerTarget are its controller Deployment's asset and extraMounts target.
	ControllerAsset  string
	ControllerTarget extramounts.Target
	// MetricsCertSecret is the serving-cert Secret of its controller's metrics Service.
	MetricsCertSecret string
	// ControllerHooks run after the shared ones, before the placeholder check.
	ControllerHooks []dc.DeploymentHookFunc
	Nodes           []NodeSpec
}

// NodeSpec is one DaemonSet of an instance.
type NodeSpec struct {
	Asset  string
	Target extramounts.Target
	// Hooks run after the shared ones and the extraMounts, before the placeholder check; Informers
	// re-run them besides the shared ones.
	Hooks     []csidrivernodeservicecontroller.DaemonSetHookFunc
	Informers []factory.Informer
}

// storageProtocolsOnly are the node plugins whose containers speak only NFS or Ceph's protocols, never
// HTTP(S): the cluster's trusted CA bundle is not theirs (nor the proxy: their assets name no container
// for it), so that a change of either never rolls pods whose restart can break the mounts they serve
// (ceph-csi's ceph-fuse mounts live in its container).
var storageProtocolsOnly = map[extramounts.PropagationType]bool{extramounts.NFSNodePlugin: true, extramounts.CephCSINodePlugin: true}

// InstanceHooks are the hooks of one driver instance's workloads, in the order they run after
// library-go's built-in ones, each with the informers whose events re-run them (beyond library-go's
// one-minute resync).
type InstanceHooks struct {
	ControllerAsset     string
	Controller          []dc.DeploymentHookFunc
	ControllerInformers []factory.Informer
	Nodes               []NodeHooks
}

// NodeHooks are one DaemonSet's hooks and informers.
type NodeHooks struct {
	Asset     string
	Hooks     []csidrivernodeservicecontroller.DaemonSetHookFunc
	Informers []factory.Informer
}

// Node returns the hooks of the DaemonSet of that asset (none if the instance has no such DaemonSet).
func (h InstanceHooks) Node(asset string) NodeHooks {
	for _, n := range h.Nodes {
		if n.Asset == asset {
			return n
		}
	}
	return NodeHooks{Asset: asset}
}

// NewWorkloadHooks returns the hooks of the Manila NFS instance: the controller Deployment (hosted in
// the hosted control plane) and the Manila and NFS node DaemonSets; on top of instanceHooks' shared ones,
// the node plugin's driver secret and runtime config hashes and its topology; csi-driver-nfs speaks
// only NFS.
func NewWorkloadHooks(in WorkloadInputs) InstanceHooks {
	return instanceHooks(in, InstanceSpec{
		ControllerAsset: assets.ControllerDeployment, ControllerTarget: extramounts.ControllerTarget, MetricsCertSecret: MetricsCertSecret,
		Nodes: []NodeSpec{{
			Asset: assets.NodeDaemonSet, Target: extramounts.NodeTarget,
			Hooks: []csidrivernodeservicecontroller.DaemonSetHookFunc{
				csidrivernodeservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
				// The driver re-reads the file on every NodeStage, and the kubelet refreshes a ConfigMap volume
				// within a minute or so; the hash rolls the pods so that a change is in force at once and shows.
				csidrivernodeservicecontroller.WithConfigMapHashAnnotationHook(names.OperandNamespace, exportlocation.ConfigMapName, in.OperandConfigMaps),
				hooks.Topology{Config: in.Mounts.Config}.DaemonSet(),
			},
			Informers: []factory.Informer{hooks.Events(in.OperandConfigMaps.Informer(), hooks.Named(exportlocation.ConfigMapName))},
		}, {
			Asset: assets.NFSNodeDaemonSet, Target: extramounts.NFSNodeTarget,
		}},
	})
}

// instanceHooks returns the hooks of a driver instance's workloads, for start and render alike. Every
// workload gets the checked values of the cluster first (they refuse the workload before anything from
// the cluster is applied), then the observed proxy and the trusted CA (neither on a DaemonSet of
// storageProtocolsOnly), the instance's own hooks and its extraMounts (a DaemonSet's extraMounts
// first), and the refusal of unfilled placeholders last. The controller also gets the hashes of
// its metrics certificate and of the driver secret, its replicas (standalone) and the topology
// (--with-topology in topology.mode Zonal); hosted, it is placed in the hosted control plane.
func instanceHooks(in WorkloadInputs, spec InstanceSpec) InstanceHooks {
	values := &hooks.ClusterValues{Infrastructures: in.Infrastructures, Recorder: in.Recorder}
	controllerMounts, mountInformers := in.Mounts.Deployment(spec.ControllerTarget)
	controllerNS, controllerConfigMaps, controllerSecrets := names.OperandNamespace, in.OperandConfigMaps, in.OperandSecrets
	hostedCP := in.Flavour.Hosted
	if hostedCP != nil {
		controllerNS, controllerConfigMaps, controllerSecrets = hostedCP.Namespace, in.ControllerConfigMaps, in.ControllerSecrets
	}
	deploymentHooks := []dc.DeploymentHookFunc{
		values.Deployment(),
		csidrivercontrollerservicecontroller.WithObservedProxyDeploymentHook(),
		csidrivercontrollerservicecontroller.WithCABundleDeploymentHook(controllerNS, hooks.TrustedCAConfigMap, controllerConfigMaps),
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(controllerNS, spec.MetricsCertSecret, controllerSecrets),
		// Hosted too, the guest's driver secret: the provisioner reads it there.
		csidrivercontrollerservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
	}
	if hostedCP == nil {
		deploymentHooks = append(deploymentHooks, dc.WithReplicasHook(in.Nodes.Lister()))
	}
	deploymentHooks = append(deploymentHooks, hooks.Topology{Config: in.Mounts.Config}.Deployment())
	deploymentHooks = append(deploymentHooks, spec.ControllerHooks...)
	deploymentHooks = append(deploymentHooks, hooks.DeploymentNoPlaceholders, controllerMounts)
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
	// Every workload re-syncs on the operand ConfigMaps and Secrets its hooks read (trusted CA,
	// OpenStack CA copy, hashed secrets) and on its hooks' own informers.
	workloadInformers := []factory.Informer{
		hooks.Events(in.OperandConfigMaps.Informer(), hooks.Named(hooks.TrustedCAConfigMap, names.CloudCAConfigMap)),
		hooks.Events(in.OperandSecrets.Informer(), hooks.Named(spec.MetricsCertSecret, names.DriverSecret)),
	}
	controllerInformers := slices.Clone(workloadInformers)
	if hostedCP != nil {
		controllerInformers = append(controllerInformers,
			hooks.Events(controllerConfigMaps.Informer(), hooks.Named(hooks.TrustedCAConfigMap, names.CloudCAConfigMap)),
			hooks.Events(controllerSecrets.Informer(), hooks.Named(spec.MetricsCertSecret)))
		if in.HostedControlPlaneInformer != nil {
			controllerInformers = append(controllerInformers, in.HostedControlPlaneInformer)
		}
	} else {
		controllerInformers = append(controllerInformers, hooks.ControlPlaneNodeEvents(in.Nodes))
	}
	h := InstanceHooks{
		ControllerAsset:     spec.ControllerAsset,
		Controller:          deploymentHooks,
		ControllerInformers: slices.Concat(controllerInformers, mountInformers),
	}
	for _, node := range spec.Nodes {
		mountHook, mountInformers := in.Mounts.DaemonSet(node.Target)
		cluster := []csidrivernodeservicecontroller.DaemonSetHookFunc{
			csidrivernodeservicecontroller.WithObservedProxyDaemonSetHook(),
			csidrivernodeservicecontroller.WithCABundleDaemonSetHook(names.OperandNamespace, hooks.TrustedCAConfigMap, in.OperandConfigMaps),
		}
		if storageProtocolsOnly[node.Target.Name] {
			cluster = nil
		}
		daemonSetHooks := slices.Concat([]csidrivernodeservicecontroller.DaemonSetHookFunc{values.DaemonSet()}, cluster,
			[]csidrivernodeservicecontroller.DaemonSetHookFunc{mountHook}, node.Hooks,
			[]csidrivernodeservicecontroller.DaemonSetHookFunc{hooks.DaemonSetNoPlaceholders})
		h.Nodes = append(h.Nodes, NodeHooks{Asset: node.Asset, Hooks: daemonSetHooks,
			Informers: slices.Concat(workloadInformers, mountInformers, node.Informers)})
	}
	return h
}
