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
		name    string
		enabled bool
		pvs     []*corev1.PersistentVolume
		want    Plan
	}{
		{"off, nothing", false, nil, Plan{Remove: true}},
		{"off, only NFS and other volumes", false, []*corev1.PersistentVolume{nfs, other}, Plan{Remove: true}},
		{"on", true, nil, Plan{Run: true}},
		{"on with volumes", true, []*corev1.PersistentVolume{cephA}, Plan{Run: true}},
		{"off with CephFS volumes", false, []*corev1.PersistentVolume{nfs, cephB, cephA}, Plan{Run: true, Retained: "2 PersistentVolume(s) of cephfs.manila.csi.openstack.org, e.g. pv-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Decide(tc.enabled, tc.pvs); got != tc.want {
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
