// Package cephfs runs the CephFS instance of the Manila driver while the operator config turns it on,
// and removes it once it is off and no volume or snapshot of its driver is left.
package cephfs

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// DriverName is the CephFS instance's CSI driver.
const DriverName = names.CephFSDriverName

// Inputs are what one sync knows of the cluster.
type Inputs struct {
	// Enabled: the operator config turns the instance on.
	Enabled bool
	// PVs are the cluster's PersistentVolumes.
	PVs []*corev1.PersistentVolume
	// Left: something of the instance is still there (its controllers run, or one of its objects
	// exists). Nothing left needs no snapshot read before it counts as removed.
	Left bool
	// Contents are the names of the VolumeSnapshotContents of the driver that still need its
	// csi-snapshotter (contentwatch.NeedsSnapshotter), read only where NeedsContents says so;
	// ContentsKnown is false while they are being listed.
	Contents      []string
	ContentsKnown bool
}

// Plan is what the controller does in one sync.
type Plan struct {
	// Run: the instance's controllers run (and keep its objects applied).
	Run bool
	// Remove: the instance's objects are deleted (it is off and nothing uses it).
	Remove bool
	// Wait: nothing changes this sync: the snapshot contents are being listed, and the sync runs
	// again once they are.
	Wait bool
	// Retained names what keeps a turned-off instance running, "" when nothing does; Reason is
	// ConditionRetained's reason then.
	Retained, Reason string
}

// NeedsContents says whether the plan depends on the VolumeSnapshotContents: only for a turned-off
// instance that something is left of and no volume keeps. Elsewhere they are neither read nor
// cached: a cluster may hold many snapshots, and most never retire the instance.
func NeedsContents(in Inputs) bool {
	return !in.Enabled && in.Left && len(cephFSVolumes(in.PVs)) == 0
}

// Decide returns the plan. Turned off, the instance keeps running while volumes of its driver exist,
// so that their pods can still be unmounted and their shares deleted through it; then while
// VolumeSnapshotContents of its driver need it, since only its csi-snapshotter deletes their Manila
// snapshots and lifts their finalizers: without it they could never be deleted.
func Decide(in Inputs) Plan {
	using := cephFSVolumes(in.PVs)
	switch {
	case in.Enabled:
		return Plan{Run: true}
	case len(using) > 0:
		return Plan{Run: true, Reason: ReasonVolumesInUse,
			Retained: fmt.Sprintf("%d PersistentVolume(s) of %s, e.g. %s", len(using), DriverName, using[0])}
	case !in.Left:
		return Plan{Remove: true}
	case !in.ContentsKnown:
		return Plan{Wait: true}
	case len(in.Contents) > 0:
		contents := slices.Sorted(slices.Values(in.Contents))
		return Plan{Run: true, Reason: ReasonSnapshotsInUse,
			Retained: fmt.Sprintf("%d VolumeSnapshotContent(s) of %s that need its csi-snapshotter (deletionPolicy Delete, or its finalizer), e.g. %s",
				len(contents), DriverName, contents[0])}
	default:
		return Plan{Remove: true}
	}
}

// cephFSVolumes returns the names of the CephFS driver's volumes among pvs, sorted.
func cephFSVolumes(pvs []*corev1.PersistentVolume) []string {
	var using []string
	for _, pv := range pvs {
		if pv.Spec.CSI != nil && pv.Spec.CSI.Driver == DriverName {
			using = append(using, pv.Name)
		}
	}
	sort.Strings(using)
	return using
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
