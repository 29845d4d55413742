package operator

import (
	"slices"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// Flavour is the operand's form, chosen once: standalone, or hosted in a hosted control plane (the
// controller in its namespace of the management cluster, the rest in the guest). `start` chooses it
// from --guest-kubeconfig and `render` from --hosted; both build the operand's objects from it
// (the assets of each side here, the workloads' hooks in NewWorkloadHooks), so what render prints is
// what start applies. Every hosted difference of the operand is decided by a method of Flavour.
type Flavour struct {
	// Hosted is the hosted control plane as the operator starts with it (its HostedControlPlane, read
	// at run time, places the controller thereafter); nil is standalone.
	Hosted *hosted.ControlPlane
	// ControlPlaneImages, hosted, replace the images of the controller's containers they name
	// (hosted.ControlPlaneImages).
	ControlPlaneImages map[string]string
}

// StandaloneFlavour is the operand of an ordinary OpenShift cluster.
func StandaloneFlavour() Flavour { return Flavour{} }

// HostedFlavour is the operand of the hosted control plane in namespace hcp, with the control-plane
// images getenv names; until its HostedControlPlane is read, one replica, as csi-operator's hosted
// Manila controller.
func HostedFlavour(hcp string, getenv func(string) string) Flavour {
	return Flavour{Hosted: &hosted.ControlPlane{Namespace: hcp, Availability: hosted.SingleReplica},
		ControlPlaneImages: hosted.ControlPlaneImages(getenv)}
}

// IsHosted tells the hosted flavour.
func (f Flavour) IsHosted() bool { return f.Hosted != nil }

// Layout says where the operator's inputs and the controller's objects live.
func (f Flavour) Layout() names.Layout {
	if f.IsHosted() {
		return names.Hosted(f.Hosted.Namespace)
	}
	return names.Standalone()
}

// GuestStatic are the static assets applied in the cluster the operator serves (hosted: the guest),
// the CSIDriver among them.
func (f Flavour) GuestStatic() []string {
	all := append(assets.StaticResources(), assets.CSIDriver)
	if !f.IsHosted() {
		return all
	}
	return onCluster(all, hosted.Guest)
}

// ManagementStatic are the static assets applied beside the controller in the HCP namespace, and
// the AssetFunc that renders them there (ManagementAssets); none standalone.
func (f Flavour) ManagementStatic(render resourceapply.AssetFunc) ([]string, resourceapply.AssetFunc) {
	if !f.IsHosted() {
		return nil, nil
	}
	return onCluster(assets.StaticResources(), hosted.Management), f.Hosted.ManagementAssets(render)
}

// StandaloneExtras tells whether the objects only a standalone cluster gets are applied: the operand
// namespace's network policies (HyperShift owns the HCP namespace's), the retired PDB's deletion and
// the ServiceMonitor (the guest's monitoring cannot reach the controller: docs/hosted.md).
func (f Flavour) StandaloneExtras() bool { return !f.IsHosted() }

// OffersCephFS tells whether the CephFS instance (operator config cephfs.enabled) can run: standalone
// only, for now (docs/hosted.md; hosted.CheckConfig refuses the setting).
func (f Flavour) OffersCephFS() bool { return !f.IsHosted() }

// ConfigValidator adds the flavour's refusals to validate: hosted, no extraMounts for the controller,
// which runs in the management cluster.
func (f Flavour) ConfigValidator(validate func(*operatorconfig.Config) error) func(*operatorconfig.Config) error {
	if !f.IsHosted() {
		return validate
	}
	return func(cfg *operatorconfig.Config) error {
		if err := hosted.CheckConfig(cfg); err != nil {
			return err
		}
		return validate(cfg)
	}
}

// ReadsLegacyConfig tells whether the operator config is also read under its old ConfigMap name:
// hosted came after the rename, so a guest has no legacy configuration.
func (f Flavour) ReadsLegacyConfig() bool { return !f.IsHosted() }

// onCluster keeps the assets the hosted flavour applies to cluster.
func onCluster(files []string, cluster hosted.Cluster) []string {
	on := hosted.AssetsOn(cluster)
	return slices.DeleteFunc(slices.Clone(files), func(f string) bool { return !slices.Contains(on, f) })
}

// Predecessors are the generations of OpenShift's Manila operator that may lead where this one runs.
// Hosted, only csi-operator's: OpenShift 4.17's operator never ran in a hosted control plane
// (cluster-storage-operator 4.17 ships no hosted assets for Manila, and it has no guest kubeconfig), and
// each lease watched there is a watch per hosted cluster on the management API.
func (f Flavour) Predecessors() []predecessor.Generation {
	if f.IsHosted() {
		return []predecessor.Generation{predecessor.CSIOperator}
	}
	return predecessor.All
}
