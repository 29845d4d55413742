package operator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

func TestNamesFilter(t *testing.T) {
	pass := namesFilter("manila-csi-driver-controller-monitor", "a-crd")
	monitor := &unstructured.Unstructured{}
	monitor.SetName("manila-csi-driver-controller-monitor")
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	cases := []struct {
		name string
		obj  any
		want bool
	}{
		{"an unstructured object of that name", monitor, true},
		{"its deletion tombstone", cache.DeletedFinalStateUnknown{Key: "ns/x", Obj: monitor}, true},
		{"a typed object of that name", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a-crd"}}, true},
		{"another object", other, false},
		{"not an object", "a string", false},
	}
	for _, tc := range cases {
		if got := pass(tc.obj); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
