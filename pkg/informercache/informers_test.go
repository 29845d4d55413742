package informercache

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestDropManagedFields(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}},
		Data: map[string]string{"k": "v"}}
	got, err := DropManagedFields(cm)
	if err != nil {
		t.Fatal(err)
	}
	if out := got.(*corev1.ConfigMap); out.ManagedFields != nil || out.Data["k"] != "v" || out.Name != "a" {
		t.Errorf("transformed to %+v", out)
	}
	// A tombstone is not an object: passed through untouched.
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: cm}
	if got, err := DropManagedFields(tomb); err != nil || got.(cache.DeletedFinalStateUnknown).Key != "ns/a" {
		t.Errorf("tombstone: %v, %v", got, err)
	}
}

func TestSlimNode(t *testing.T) {
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "master-0", UID: "u", ResourceVersion: "7",
			Labels:        map[string]string{"node-role.kubernetes.io/master": ""},
			Annotations:   map[string]string{"machine.openshift.io/machine": "openshift-machine-api/m0"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec: corev1.NodeSpec{ProviderID: "openstack:///x"},
		Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.5"}},
			Images:    []corev1.ContainerImage{{Names: []string{"quay.io/a@sha256:0"}, SizeBytes: 1}},
		},
	}
	got, err := Slim(node)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "master-0", UID: "u", ResourceVersion: "7", Labels: node.Labels},
		Status:     corev1.NodeStatus{Addresses: node.Status.Addresses},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Slim(node) = %+v, want %+v", got, want)
	}
	// Anything else only loses its managedFields.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "x"}}}}
	if out, _ := Slim(cm); out.(*corev1.ConfigMap).ManagedFields != nil || out.(*corev1.ConfigMap).Name != "a" {
		t.Errorf("Slim(ConfigMap) = %+v", out)
	}
}
