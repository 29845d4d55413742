package informercache

import (
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
