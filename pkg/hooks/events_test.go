package hooks

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestNamed(t *testing.T) {
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	keep := Named(TrustedCAConfigMap, "manila-csi-driver-cloud-ca")
	for _, tc := range []struct {
		name string
		obj  any
		want bool
	}{
		{"named", cm(TrustedCAConfigMap), true},
		{"the other name", cm("manila-csi-driver-cloud-ca"), true},
		{"a neighbour", cm("kube-root-ca.crt"), false},
		{"a deleted one's tombstone", cache.DeletedFinalStateUnknown{Key: "ns/" + TrustedCAConfigMap, Obj: cm(TrustedCAConfigMap)}, true},
		{"a neighbour's tombstone", cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: cm("x")}, false},
		{"not an object", "text", false},
	} {
		if got := keep(tc.obj); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
