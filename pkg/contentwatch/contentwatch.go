// Package contentwatch caches the cluster's VolumeSnapshotContents only while a controller needs
// them: the operator reads them only while it retires the CephFS instance (a snapshot of its driver
// can be deleted only through it, so it stays while one still needs its csi-snapshotter), which most
// clusters never do.
package contentwatch

import (
	"context"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/ondemand"
)

// Resource is the VolumeSnapshotContent's API resource (a CRD of the snapshot controller).
var Resource = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotcontents"}

// CRDName is the name of Resource's CustomResourceDefinition: without it there is nothing to list.
const CRDName = "volumesnapshotcontents.snapshot.storage.k8s.io"

// DriverOf returns a VolumeSnapshotContent's spec.driver, or a deleted one's (its tombstone's); ""
// for anything else.
func DriverOf(obj any) string {
	u, ok := contentOf(obj)
	if !ok {
		return ""
	}
	driver, _, _ := unstructured.NestedString(u.Object, "spec", "driver")
	return driver
}

// contentOf is the content an informer handed over: the object, or a deleted one's tombstone's.
func contentOf(obj any) (*unstructured.Unstructured, bool) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	u, ok := obj.(*unstructured.Unstructured)
	return u, ok
}

// SnapshotterFinalizer is the finalizer the snapshot controller puts on every bound content and only
// the driver's csi-snapshotter lifts, once it has deleted the snapshot (deletionPolicy Delete) or at
// once (Retain), as the content is deleted.
const SnapshotterFinalizer = "snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection"

// NeedsSnapshotter says whether a content (or a deleted one's tombstone) still needs its driver's
// csi-snapshotter: it carries SnapshotterFinalizer, or its deletionPolicy is not Retain (Delete: its
// snapshot is deleted through it, whenever the content goes). A Retain content without the finalizer
// (one pre-provisioned that no VolumeSnapshot has bound: the snapshot controller adds the finalizer
// only at the binding, and keeps it on a bound content after its VolumeSnapshot is deleted) needs
// nothing of it: deleting it deletes nothing in Manila and waits for nobody.
func NeedsSnapshotter(obj any) bool {
	u, ok := contentOf(obj)
	if !ok {
		return false
	}
	policy, _, _ := unstructured.NestedString(u.Object, "spec", "deletionPolicy")
	return policy != "Retain" || slices.Contains(u.GetFinalizers(), SnapshotterFinalizer)
}

// Slim is the informer's transform: of a VolumeSnapshotContent it keeps its identity, spec.driver,
// spec.deletionPolicy and SnapshotterFinalizer if it carries it, all that is read; its status and
// source handles are the rest, once per snapshot of the cluster.
func Slim(obj any) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	slim := &unstructured.Unstructured{Object: map[string]any{"apiVersion": u.GetAPIVersion(), "kind": u.GetKind()}}
	slim.SetName(u.GetName())
	slim.SetUID(u.GetUID())
	slim.SetResourceVersion(u.GetResourceVersion())
	if slices.Contains(u.GetFinalizers(), SnapshotterFinalizer) {
		slim.SetFinalizers([]string{SnapshotterFinalizer})
	}
	// Neither can fail: spec is new, and the values are strings.
	if driver := DriverOf(u); driver != "" {
		_ = unstructured.SetNestedField(slim.Object, driver, "spec", "driver")
	}
	if policy, _, _ := unstructured.NestedString(u.Object, "spec", "deletionPolicy"); policy != "" {
		_ = unstructured.SetNestedField(slim.Object, policy, "spec", "deletionPolicy")
	}
	return slim, nil
}

// NamesOf returns the names of the contents in store whose spec.driver is driver and that still need
// its csi-snapshotter (NeedsSnapshotter), sorted.
func NamesOf(store cache.Store, driver string) []string {
	var out []string
	for _, obj := range store.List() {
		if DriverOf(obj) == driver && NeedsSnapshotter(obj) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				out = append(out, u.GetName())
			}
		}
	}
	sort.Strings(out)
	return out
}

// Watch is a cache of the cluster's VolumeSnapshotContents that exists only between an Of call and
// Release: the first Of starts an informer (contents kept slim) and answers "not yet" until its first
// list is in; Release stops it and lets its cache go.
//
// changed runs once the first list is in, and on each content of driver that comes to need its
// csi-snapshotter or stops needing it (created, deleted, its finalizer lifted, its deletionPolicy
// changed), so that the caller's sync runs again.
type Watch struct {
	driver string
	on     *ondemand.Informer
}

// New returns a Watch of client's VolumeSnapshotContents of driver; nothing is listed or watched
// until Of.
func New(client dynamic.Interface, driver string, changed func()) *Watch {
	newInformer := func() cache.SharedIndexInformer {
		informer := dynamicinformer.NewFilteredDynamicInformer(client, Resource, metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
		_ = informer.SetTransform(Slim) // cannot fail before Run
		return informer
	}
	relevant := func(obj any) bool { return DriverOf(obj) == driver && NeedsSnapshotter(obj) }
	return &Watch{driver: driver, on: ondemand.New(newInformer, relevant, changed)}
}

// Of returns the names of the contents of the driver (NamesOf). known is false while the cache is
// being filled: the caller must not act as if there were none, and is called back (changed) once it
// is filled. The informer runs until Release or until ctx ends.
func (w *Watch) Of(ctx context.Context) (names []string, known bool) {
	informer, synced := w.on.Get(ctx)
	if !synced {
		return nil, false
	}
	return NamesOf(informer.GetStore(), w.driver), true
}

// Release stops the informer, if one runs, and drops its cache.
func (w *Watch) Release() { w.on.Release() }
