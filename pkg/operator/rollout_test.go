package operator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestSameImages(t *testing.T) {
	c := func(name, image string) corev1.Container { return corev1.Container{Name: name, Image: image} }
	ours := []corev1.Container{c("manila-csi-driver-operator", "quay.io/x/manila-operator:v1")}
	for _, tc := range []struct {
		name          string
		running, next []corev1.Container
		want          bool
	}{
		{"the same image: a rollout of an argument or variable", ours, ours, true},
		{"another image: cluster-storage-operator's swap, or an upgrade", ours,
			[]corev1.Container{c("manila-csi-driver-operator", "quay.io/openshift/csi-driver-manila-operator:4.17")}, false},
		{"a sidecar added beside the same image", ours, append([]corev1.Container{c("kube-rbac-proxy", "proxy")}, ours...), true},
		{"the container renamed", ours, []corev1.Container{c("operator", "quay.io/x/manila-operator:v1")}, false},
		{"one of two containers changed",
			[]corev1.Container{c("a", "1"), c("b", "1")}, []corev1.Container{c("a", "1"), c("b", "2")}, false},
		{"no containers read", nil, ours, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sameImages(tc.running, tc.next); got != tc.want {
				t.Errorf("sameImages = %v, want %v", got, tc.want)
			}
		})
	}
}
