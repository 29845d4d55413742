package cephfs

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func pv(name, driver string) *corev1.PersistentVolume {
	p := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if driver != "" {
		p.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: driver}
	}
	return p
}

func TestDecide(t *testing.T) {
	nfs, cephB, cephA, other := pv("nfs", "manila.csi.openstack.org"), pv("pv-b", DriverName), pv("pv-a", DriverName), pv("hostpath", "")
	for _, tc := range []struct {
		name          string
		in            Inputs
		needsContents bool
		want          Plan
	}{
		// Nothing left to keep: the snapshots are not read (a watch of every snapshot for nothing).
		{"off, nothing left", Inputs{}, false, Plan{Remove: true}},
		{"off, only NFS and other volumes, nothing left", Inputs{PVs: []*corev1.PersistentVolume{nfs, other}}, false, Plan{Remove: true}},
		{"on", Inputs{Enabled: true}, false, Plan{Run: true}},
		{"on with volumes", Inputs{Enabled: true, PVs: []*corev1.PersistentVolume{cephA}, Left: true}, false, Plan{Run: true}},
		{"on with snapshots: not read", Inputs{Enabled: true, Left: true}, false, Plan{Run: true}},
		{"off with CephFS volumes: snapshots not read", Inputs{PVs: []*corev1.PersistentVolume{nfs, cephB, cephA}, Left: true}, false,
			Plan{Run: true, Reason: ReasonVolumesInUse, Retained: "2 PersistentVolume(s) of cephfs.manila.csi.openstack.org, e.g. pv-a"}},
		{"off with CephFS volumes after a restart, nothing left: it runs again", Inputs{PVs: []*corev1.PersistentVolume{cephA}}, false,
			Plan{Run: true, Reason: ReasonVolumesInUse, Retained: "1 PersistentVolume(s) of cephfs.manila.csi.openstack.org, e.g. pv-a"}},
		{"off, left, snapshots being listed: wait", Inputs{PVs: []*corev1.PersistentVolume{nfs}, Left: true}, true, Plan{Wait: true}},
		{"off, left, CephFS snapshots", Inputs{Left: true, ContentsKnown: true, Contents: []string{"snapcontent-b", "snapcontent-a"}}, true,
			Plan{Run: true, Reason: ReasonSnapshotsInUse, Retained: "2 VolumeSnapshotContent(s) of cephfs.manila.csi.openstack.org that need its csi-snapshotter (deletionPolicy Delete, or its finalizer), e.g. snapcontent-a"}},
		{"off, left, no CephFS snapshot", Inputs{PVs: []*corev1.PersistentVolume{nfs}, Left: true, ContentsKnown: true}, true, Plan{Remove: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsContents(tc.in); got != tc.needsContents {
				t.Errorf("NeedsContents = %v, want %v", got, tc.needsContents)
			}
			if got := Decide(tc.in); got != tc.want {
				t.Fatalf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Only volumes of the CephFS driver, or their tombstones, start a sync.
func TestIsCephFSVolume(t *testing.T) {
	csi := func(driver string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
			CSI: &corev1.CSIPersistentVolumeSource{Driver: driver}}}}
	}
	for _, tc := range []struct {
		name string
		obj  any
		want bool
	}{
		{"CephFS volume", csi(DriverName), true},
		{"its tombstone", cache.DeletedFinalStateUnknown{Key: "pv", Obj: csi(DriverName)}, true},
		{"NFS volume of the Manila driver", csi("manila.csi.openstack.org"), false},
		{"another driver's tombstone", cache.DeletedFinalStateUnknown{Key: "pv", Obj: csi("ebs.csi.aws.com")}, false},
		{"in-tree volume", &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{
			NFS: &corev1.NFSVolumeSource{Server: "s"}}}}, false},
		{"not a volume", &corev1.PersistentVolumeClaim{}, false},
	} {
		if got := isCephFSVolume(tc.obj); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
