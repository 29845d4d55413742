// Package predecessor knows OpenShift's own Manila operators as this operator meets them on a
// cluster: the lease each one's leader holds and the conditions each one writes on the
// ClusterCSIDriver (read from their code, ../shared/REFERENCE.md sections 11 and 13).
package predecessor

import (
	"slices"
	"strings"
	"unicode"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// Generation is one of OpenShift's Manila operators.
type Generation struct {
	// Name says which operator it is, for messages.
	Name string
	// Lease is the name of its leader's Lease in the operator namespace (library-go's controllercmd
	// names it <component>-lock).
	Lease string
	// owners are the controller names that start the type of every condition it writes; prefixes
	// are name prefixes that all of its own controllers share.
	owners, prefixes []string
}

var (
	// CSIDriverManilaOperator is openshift/csi-driver-manila-operator, OpenShift 4.17 and older.
	CSIDriverManilaOperator = Generation{
		Name:  "csi-driver-manila-operator (OpenShift 4.17 and older)",
		Lease: "csi-driver-manila-operator-lock",
		owners: []string{"ManilaController", "SecretSync", "ManilaDriverStaticResources",
			"ManilaDriverConditionalStaticResourcesController", "ManilaDriverControllerServiceController",
			"ManilaDriverNodeServiceController", "NFSDriverNodeServiceController", "ManilaDriverServiceMonitorController",
			"ResourceSyncController", "ManagementState", "ConfigObservation"},
	}
	// CSIOperator is openshift/csi-operator's openstack-manila driver, OpenShift 4.18 and newer.
	CSIOperator = Generation{
		Name:  "csi-operator's openstack-manila-csi-driver-operator (OpenShift 4.18 and newer)",
		Lease: "openstack-manila-csi-driver-operator-lock",
		owners: []string{"CSIController", "StarterController", "ManagementState", "ConfigObservation",
			"NFSDriverNodeServiceController", "VolumeSnapshotClassController", "ResourceSyncController"},
		prefixes: []string{"OpenStackManila"},
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

// conditionSuffixes end the type of every condition of a library-go style controller.
var conditionSuffixes = []string{"Available", "Progressing", "Degraded", "Upgradeable", "Disabled"}

// OwnedBy is whether a condition type is <owner><Kind> for one of owners, Kind a capitalised word
// (Degraded, or one of this operator's own such as StorageClassControllerNotAdopted). A Kind never
// starts with "Controller": that is another owner's name, as the 4.17 predecessor's SecretSync is
// the start of SecretSyncController.
func OwnedBy(conditionType string, owners []string) bool {
	return slices.ContainsFunc(owners, func(owner string) bool {
		kind, ok := strings.CutPrefix(conditionType, owner)
		return ok && kind != "" && unicode.IsUpper(rune(kind[0])) && !strings.HasPrefix(kind, "Controller")
	})
}

// Writes is whether the generation writes conditions of this type.
func (g Generation) Writes(conditionType string) bool {
	if OwnedBy(conditionType, g.owners) {
		return true
	}
	return slices.ContainsFunc(g.prefixes, func(p string) bool {
		return strings.HasPrefix(conditionType, p) && slices.ContainsFunc(conditionSuffixes, func(s string) bool {
			return strings.HasSuffix(conditionType, s)
		})
	})
}

// StaleAfterTakeover are the types of the conditions that only a predecessor writes: once this
// operator (whose controllers are ours) leads, nobody would ever update or remove them. Of them, the
// `*Available` ones are left while none of ours is there yet: cluster-storage-operator reads no
// Available condition at all as an unavailable driver.
func StaleAfterTakeover(conditions []operatorv1.OperatorCondition, ours []string) []string {
	oursAvailable := slices.ContainsFunc(conditions, func(c operatorv1.OperatorCondition) bool {
		return OwnedBy(c.Type, ours) && strings.HasSuffix(c.Type, "Available")
	})
	var stale []string
	for _, c := range conditions {
		if OwnedBy(c.Type, ours) || !slices.ContainsFunc(All, func(g Generation) bool { return g.Writes(c.Type) }) {
			continue
		}
		if strings.HasSuffix(c.Type, "Available") && !oursAvailable {
			continue
		}
		stale = append(stale, c.Type)
	}
	return stale
}

// StaleAfterHandBack are the types of this operator's conditions (of owners ours) that generation g
// does not write: once g leads, nobody would ever update or remove them. Nothing is stale until g
// has written an Available condition of its own, for the same reason as in StaleAfterTakeover.
func StaleAfterHandBack(conditions []operatorv1.OperatorCondition, ours []string, g Generation) []string {
	if !slices.ContainsFunc(conditions, func(c operatorv1.OperatorCondition) bool {
		return g.Writes(c.Type) && strings.HasSuffix(c.Type, "Available")
	}) {
		return nil
	}
	var stale []string
	for _, c := range conditions {
		if OwnedBy(c.Type, ours) && !g.Writes(c.Type) {
			stale = append(stale, c.Type)
		}
	}
	return stale
}
