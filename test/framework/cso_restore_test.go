package framework

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestKeptByTheCluster(t *testing.T) {
	for _, tc := range []struct {
		kind, name string
		want       bool
	}{
		{"ServiceAccount", "default", true},
		{"ConfigMap", "kube-root-ca.crt", true},
		{"ServiceAccount", "manila-csi-driver-operator", false},
		{"ConfigMap", "default", false},
		{"Secret", "kube-root-ca.crt", false},
		{"ConfigMap", "openshift-service-ca.crt", false},
	} {
		o := &unstructured.Unstructured{}
		o.SetKind(tc.kind)
		o.SetName(tc.name)
		if got := keptByTheCluster(o); got != tc.want {
			t.Errorf("keptByTheCluster(%s %s) = %v; want %v", tc.kind, tc.name, got, tc.want)
		}
	}
}
