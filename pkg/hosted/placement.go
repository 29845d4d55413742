// Package hosted is the hosted-control-plane (HyperShift) flavour of the operand: which cluster each
// object lives in, and the pure transforms that turn the standalone controller Deployment and the
// management-side objects into their hosted form. It reads no cluster; docs/hosted.md is the design.
package hosted

import (
	"fmt"
	"slices"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
)

// Cluster is where an object lives in the hosted flavour.
type Cluster string

const (
	// Management is the management cluster, in the hosted control plane's namespace.
	Management Cluster = "management"
	// Guest is the hosted (guest) cluster, in the namespaces the standalone operator uses.
	Guest Cluster = "guest"
)

// Fixed names of the hosted flavour, as HyperShift and csi-operator's hosted Manila driver use them.
const (
	// GuestKubeconfigSecret is HyperShift's Secret in the HCP namespace with a kubeconfig of the guest's
	// kube-apiserver reachable on the management cluster's service network (key "kubeconfig").
	GuestKubeconfigSecret = "service-network-admin-kubeconfig"
	// GuestKubeconfigDir is where the controller's sidecars find it.
	GuestKubeconfigDir = "/etc/hosted-kubernetes"
	// GuestKubeconfigVolume is the controller pod's volume of that Secret.
	GuestKubeconfigVolume = "hosted-kubeconfig"

	// LabelHostedControlPlane marks every pod of a hosted control plane with its namespace.
	LabelHostedControlPlane = "hypershift.openshift.io/hosted-control-plane"
	// LabelControlPlaneNode and LabelClusterNode are the management nodes' labels (and taints)
	// reserved for control planes, and for this hosted cluster's control plane.
	LabelControlPlaneNode = "hypershift.openshift.io/control-plane"
	LabelClusterNode      = "hypershift.openshift.io/cluster"
	// PriorityClass is HyperShift's priority class of control-plane pods.
	PriorityClass = "hypershift-control-plane"
)

// assetClusters places every operand asset. An asset with no cluster is not applied in the hosted
// flavour; docs/hosted.md says why for each row.
var assetClusters = map[string][]Cluster{
	// HyperShift creates the HCP namespace; the guest needs the operand namespace.
	assets.Namespace: {Guest},
	// The controller pods run as it on the management cluster; in the guest it is the identity the
	// sidecars' least-privilege guest kubeconfig names, and the controller roles are bound to it.
	assets.ControllerServiceAccount: {Management, Guest},
	assets.NodeServiceAccount:       {Guest},
	// The sidecars act on the guest's claims, volumes, snapshots and leases, and read its driver secret.
	assets.ControllerRole:             {Guest},
	assets.ControllerBinding:          {Guest},
	assets.ControllerNamespaceRole:    {Guest},
	assets.ControllerNamespaceBinding: {Guest},
	// They let the guest's prometheus-k8s discover the metrics Service, which is not in the guest.
	assets.PrometheusRole:    nil,
	assets.PrometheusBinding: nil,
	assets.NodeRole:          {Guest},
	assets.NodeBinding:       {Guest},
	// Beside the controller pods it selects.
	assets.MetricsService: {Management},
	// Each cluster's network operator fills its own; the controller mounts one, the node plugins the other.
	assets.TrustedCABundle: {Management, Guest},
	assets.ControllerPDB:   {Management},
	// HyperShift owns the HCP namespace's network policies (a default-deny there would cut off the
	// whole hosted control plane), and the guest's operand namespace runs only host-network pods.
	assets.NetworkPolicyDefaultDeny: nil,
	assets.NetworkPolicyAPIServer:   nil,
	assets.NetworkPolicyDNS:         nil,
	assets.NetworkPolicyAllEgress:   nil,
	assets.NetworkPolicyMetrics:     nil,
	assets.NetworkPolicyProbes:      nil,

	assets.CSIDriver:            {Guest},
	assets.ControllerDeployment: {Management},
	assets.NodeDaemonSet:        {Guest},
	assets.NFSNodeDaemonSet:     {Guest},
	assets.VolumeSnapshotClass:  {Guest},
	// As csi-operator's hosted flavour: the management cluster's monitoring is HyperShift's to set up.
	assets.ServiceMonitor: nil,
	// The CephFS instance does not run hosted yet (CheckConfig refuses cephfs.enabled).
	assets.CephFSCephConfig:           nil,
	assets.CephFSCephCSIConfig:        nil,
	assets.CephFSCSIDriver:            nil,
	assets.CephFSVolumeSnapshotClass:  nil,
	assets.CephFSControllerDeployment: nil,
	assets.CephFSNodeDaemonSet:        nil,
	assets.CephCSINodeDaemonSet:       nil,
	assets.CephFSMetricsService:       nil,
	assets.CephFSServiceMonitor:       nil,
}

// AssetClusters returns the clusters an operand asset is applied to (none: not applied when hosted).
func AssetClusters(asset string) ([]Cluster, error) {
	c, ok := assetClusters[asset]
	if !ok {
		return nil, fmt.Errorf("asset %q has no place in the hosted flavour", asset)
	}
	return slices.Clone(c), nil
}

// AssetsOn returns the assets applied to cluster, in assets.Names() order.
func AssetsOn(cluster Cluster) []string {
	var out []string
	for _, name := range assets.Names() {
		if slices.Contains(assetClusters[name], cluster) {
			out = append(out, name)
		}
	}
	return out
}
