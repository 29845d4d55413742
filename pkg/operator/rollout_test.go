package operator

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func TestHandOverDeadline(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	deleted := func(grace time.Duration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &metav1.Time{Time: now.Add(grace)}}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		wait time.Duration
		want time.Time
	}{
		{"outside a pod: the wait decides", nil, 2 * time.Minute, now.Add(2 * time.Minute)},
		{"a pod not being deleted: the wait decides", &corev1.Pod{}, 20 * time.Second, now.Add(20 * time.Second)},
		{"cluster-storage-operator's 30 s grace: its end less the margin", deleted(30 * time.Second), 2 * time.Minute, now.Add(30*time.Second - exitMargin)},
		{"a long grace: the wait decides", deleted(10 * time.Minute), 2 * time.Minute, now.Add(2 * time.Minute)},
		{"a grace shorter than the margin: no wait", deleted(3 * time.Second), 2 * time.Minute, now.Add(3*time.Second - exitMargin)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := handOverDeadline(tc.pod, now, tc.wait); !got.Equal(tc.want) {
				t.Errorf("handOverDeadline = %s, want %s", got, tc.want)
			}
		})
	}
}
