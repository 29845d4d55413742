// Package predecessor knows OpenShift's own Manila operators as this operator meets them on a
// cluster: the lease each one's leader holds and the conditions each one writes on the
// ClusterCSIDriver (read from their code, ../shared/REFERENCE.md sections 11 and 13).
package predecessor

import (
	"slices"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
)

// Generation is one of OpenShift's Manila operators.
type Generation struct {
	// Name says which operator it is, for messages.
	Name string
	// Lease is the name of its leader's Lease in the operator namespace (library-go's controllercmd
	// names it <component>-lock).
	Lease string
	// Types are the exact condition types it ever writes on the ClusterCSIDriver, read from its code
	// (each with the file that names it; LG is the library-go it builds with).
	Types []string
	// Shared are those of Types that this operator writes too (the same library-go controller names):
	// they are nobody's stale leftover after a takeover or a hand-back, and prove nothing about who
	// wrote them.
	Shared []string
}

var (
	// CSIDriverManilaOperator is openshift/csi-driver-manila-operator, OpenShift 4.17 and older
	// (e5927046; LG = its vendored library-go v0.0.0-20240709182732). Everything but ManilaController's
	// two is written only once Manila was found (pkg/controllers/manila/manila.go:115-125 starts them).
	CSIDriverManilaOperator = Generation{
		Name:  "csi-driver-manila-operator (OpenShift 4.17 and older)",
		Lease: "csi-driver-manila-operator-lock",
		Types: []string{
			"ManilaControllerDegraded",                                 // pkg/controllers/manila/manila.go:83-87, LG factory/base_controller.go:226
			"ManilaControllerDisabled",                                 // manila.go:236-249 (True, reason NoManila: also when Keystone fails)
			"SecretSyncDegraded",                                       // pkg/controllers/secret/secretsync.go:56-59
			"ManagementStateDegraded",                                  // LG managementstatecontroller/management_state_controller.go:51
			"ManilaDriverStaticResourcesDegraded",                      // pkg/operator/starter.go:79-80
			"ManilaDriverConditionalStaticResourcesControllerDegraded", // starter.go:110-111
			"ConfigObservationDegraded",                                // LG configobserver/config_observer_controller.go:111
			"ManilaDriverControllerServiceControllerAvailable",         // starter.go:132-133, LG deploymentcontroller/deployment_controller.go:265
			"ManilaDriverControllerServiceControllerProgressing",       // deployment_controller.go:281
			"ManilaDriverControllerServiceControllerDegraded",          // deployment_controller.go:189-193
			"ManilaDriverNodeServiceControllerAvailable",               // starter.go:155-156, LG csi_driver_node_service_controller.go:177
			"ManilaDriverNodeServiceControllerProgressing",             // csi_driver_node_service_controller.go:190
			"ManilaDriverNodeServiceControllerDegraded",                // csi_driver_node_service_controller.go:113-116
			"NFSDriverNodeServiceControllerAvailable",                  // starter.go:179-187
			"NFSDriverNodeServiceControllerProgressing",
			"NFSDriverNodeServiceControllerDegraded",
			"ManilaDriverServiceMonitorControllerDegraded", // starter.go:168-169
			"ResourceSyncControllerDegraded",               // starter.go:199-207, LG resourcesync_controller.go:254
		},
		Shared: []string{
			"ManilaControllerDegraded", "ManilaControllerDisabled", "ManagementStateDegraded", "ConfigObservationDegraded",
			"ManilaDriverControllerServiceControllerAvailable", "ManilaDriverControllerServiceControllerProgressing",
			"ManilaDriverControllerServiceControllerDegraded", "ManilaDriverNodeServiceControllerAvailable",
			"ManilaDriverNodeServiceControllerProgressing", "ManilaDriverNodeServiceControllerDegraded",
			"NFSDriverNodeServiceControllerAvailable", "NFSDriverNodeServiceControllerProgressing", "NFSDriverNodeServiceControllerDegraded",
		},
	}
	// CSIOperator is openshift/csi-operator's openstack-manila driver, OpenShift 4.18 and newer
	// (f7f9dc59; LG = library-go v0.0.0-20260721103755). Everything but StarterController's and
	// CSIController's is written only once its precondition held (pkg/operator/starter_controller.go:70-90).
	CSIOperator = Generation{
		Name:  "csi-operator's openstack-manila-csi-driver-operator (OpenShift 4.18 and newer)",
		Lease: "openstack-manila-csi-driver-operator-lock",
		Types: []string{
			"StarterControllerDegraded", // pkg/operator/starter_controller.go:56-58
			"CSIControllerDisabled",     // starter_controller.go:109-122 (True, PreConditionNotSatisfied: also when Keystone fails)
			"ManagementStateDegraded",   // LG managementstatecontroller/management_state_controller.go:63
			"OpenStackManilaDriverControlPlaneStaticResourcesControllerDegraded", // pkg/operator/starter.go:137-145
			"ConfigObservationDegraded",                                   // LG configobserver/config_observer_controller.go:119
			"OpenStackManilaDriverControllerServiceControllerAvailable",   // starter.go:149-158, LG deployment_controller.go:273
			"OpenStackManilaDriverControllerServiceControllerProgressing", // deployment_controller.go:292
			"OpenStackManilaDriverControllerServiceControllerDegraded",    // deployment_controller.go:196-200,305-306
			"OpenStackManilaDriverGuestStaticResourcesControllerDegraded", // starter.go:194-202
			"OpenStackManilaDriverNodeServiceControllerAvailable",         // starter.go:203-211, LG csi_driver_node_service_controller.go:202
			"OpenStackManilaDriverNodeServiceControllerProgressing",
			"OpenStackManilaDriverNodeServiceControllerDegraded",
			"NFSDriverNodeServiceControllerAvailable", // pkg/driver/openstack-manila/openstack_manila.go:147-155
			"NFSDriverNodeServiceControllerProgressing",
			"NFSDriverNodeServiceControllerDegraded",
			"VolumeSnapshotClassControllerDegraded",              // pkg/operator/volume_snapshot_class/volume_snapshot_controller.go:76-87
			"ResourceSyncControllerDegraded",                     // openstack_manila.go:347-353, LG resourcesync_controller.go:265
			"OpenStackManilaDeploymentVersionControllerDegraded", // openstack_manila.go:162-172 (hosted only)
		},
		Shared: []string{
			"ManagementStateDegraded", "ConfigObservationDegraded", "NFSDriverNodeServiceControllerAvailable",
			"NFSDriverNodeServiceControllerProgressing", "NFSDriverNodeServiceControllerDegraded", "VolumeSnapshotClassControllerDegraded",
		},
	}
	// All are every generation, oldest first.
	All = []Generation{CSIDriverManilaOperator, CSIOperator}
)

// ByLease is the generation whose leader holds the named lease.
func ByLease(name string) (Generation, bool) {
	i := slices.IndexFunc(All, func(g Generation) bool { return g.Lease == name })
	if i < 0 {
		return Generation{}, false
	}
	return All[i], true
}

// Writes is whether the generation writes conditions of this type.
func (g Generation) Writes(conditionType string) bool { return slices.Contains(g.Types, conditionType) }

// viewKinds are the suffixes by which cluster-storage-operator decides whether storage is Available.
var viewKinds = []string{"Available", "Disabled"}

func isViewKind(conditionType string) bool {
	return slices.ContainsFunc(viewKinds, func(k string) bool { return strings.HasSuffix(conditionType, k) })
}

// keepView drops from stale the *Available and *Disabled types that must stand for cluster-storage-
// operator's view: all of them until the side that takes over has written a view condition of its own
// (replaced: True or False, a view is never left to a guess in between), and after that those whose
// removal would turn the view from Available to unavailable (storage never loses an Available or
// Disabled it had a moment before). The rest of stale goes as it is.
func keepView(conditions []operatorv1.OperatorCondition, stale []string, replaced bool) []string {
	without := func(types []string) []operatorv1.OperatorCondition {
		return slices.DeleteFunc(slices.Clone(conditions), func(c operatorv1.OperatorCondition) bool { return slices.Contains(types, c.Type) })
	}
	if replaced && (!csoview.Available(conditions) || csoview.Available(without(stale))) {
		return stale
	}
	return slices.DeleteFunc(slices.Clone(stale), isViewKind)
}

// hasView is whether a condition of a type whose says is an *Available or *Disabled.
func hasView(conditions []operatorv1.OperatorCondition, whose func(string) bool) bool {
	return slices.ContainsFunc(conditions, func(c operatorv1.OperatorCondition) bool { return whose(c.Type) && isViewKind(c.Type) })
}

// StaleAfterTakeover are the types of the conditions that only a predecessor writes: once this
// operator (whose controllers are ours) leads, nobody would ever update or remove them. A
// predecessor's *Available or *Disabled (True or False) stands until this operator has written one of
// its own, and while it is what keeps the driver Available in cluster-storage-operator's view, until
// this operator's own conditions do (keepView).
func StaleAfterTakeover(conditions []operatorv1.OperatorCondition, ours conditiontypes.Set) []string {
	var stale []string
	for _, c := range conditions {
		if ours.Has(c.Type) || !slices.ContainsFunc(All, func(g Generation) bool { return g.Writes(c.Type) }) {
			continue
		}
		stale = append(stale, c.Type)
	}
	return keepView(conditions, stale, hasView(conditions, ours.Has))
}

// OursLeft are the types of this operator's conditions (the types ours) that generation g does not
// write: what a complete hand-back to g removes.
func OursLeft(conditions []operatorv1.OperatorCondition, ours conditiontypes.Set, g Generation) []string {
	var left []string
	for _, c := range conditions {
		if ours.Has(c.Type) && !g.Writes(c.Type) {
			left = append(left, c.Type)
		}
	}
	return left
}

// StaleAfterHandBack are the types of this operator's conditions (the types ours) that generation g
// does not write: once g leads, nobody would ever update or remove them. Its *Available and
// *Disabled stand until g has written one of its own, and while they are what keeps the driver
// Available (keepView), unless g reports a
// Degraded=True of its type: a predecessor failing its own checks is what storage must show.
func StaleAfterHandBack(conditions []operatorv1.OperatorCondition, ours conditiontypes.Set, g Generation) []string {
	stale := OursLeft(conditions, ours, g)
	failing := false
	for _, c := range conditions {
		failing = failing || (g.Writes(c.Type) && !ours.Has(c.Type) && strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue)
	}
	if failing {
		return stale
	}
	return keepView(conditions, stale, hasView(conditions, func(t string) bool { return g.Writes(t) && !ours.Has(t) }))
}
