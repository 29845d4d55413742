// Package cephfs runs the CephFS instance of the Manila driver while the operator config turns it on,
// and removes it once it is off and no volume uses it.
package cephfs

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// DriverName is the CephFS instance's CSI driver.
const DriverName = names.CephFSDriverName

// Plan is what the controller does in one sync.
type Plan struct {
	// Run: the instance's controllers run (and keep its objects applied).
	Run bool
	// Remove: the instance's objects are deleted (it is off and nothing uses it).
	Remove bool
	// Retained names the volumes that keep a turned-off instance running, "" when none does.
	Retained string
}

// Decide returns the plan for a config that turns the instance on or off, given the cluster's
// PersistentVolumes: volumes of the CephFS driver keep it running while they exist, so that their
// pods can still be unmounted, their shares deleted and their snapshots removed through it.
func Decide(enabled bool, pvs []*corev1.PersistentVolume) Plan {
	var using []string
	for _, pv := range pvs {
		if pv.Spec.CSI != nil && pv.Spec.CSI.Driver == DriverName {
			using = append(using, pv.Name)
		}
	}
	switch {
	case enabled:
		return Plan{Run: true}
	case len(using) > 0:
		sort.Strings(using)
		return Plan{Run: true, Retained: fmt.Sprintf("%d PersistentVolume(s) of %s, e.g. %s", len(using), DriverName, using[0])}
	default:
		return Plan{Remove: true}
	}
}

// isCephFSVolume reports whether obj is a PersistentVolume (or a deleted one's tombstone) of the
// CephFS driver.
func isCephFSVolume(obj any) bool {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pv, ok := obj.(*corev1.PersistentVolume)
	return ok && pv.Spec.CSI != nil && pv.Spec.CSI.Driver == DriverName
}
