package contentwatch

import (
	"context"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/cache"
)

const ceph, nfs = "cephfs.manila.csi.openstack.org", "manila.csi.openstack.org"

func content(name, driver string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{"driver": driver, "deletionPolicy": "Delete",
			"source": map[string]any{"snapshotHandle": "handle-" + name}},
		"status": map[string]any{"readyToUse": true},
	}}
	return u
}

// retained is a content of driver whose deletionPolicy is Retain, with the snapshotter's finalizer
// or without.
func retained(name, driver string, finalizer bool) *unstructured.Unstructured {
	u := content(name, driver)
	u.Object["spec"].(map[string]any)["deletionPolicy"] = "Retain"
	if finalizer {
		u.SetFinalizers([]string{"other.example.com/keep", SnapshotterFinalizer})
	}
	return u
}

func TestNeedsSnapshotter(t *testing.T) {
	noPolicy := content("a", ceph)
	delete(noPolicy.Object["spec"].(map[string]any), "deletionPolicy")
	for _, tc := range []struct {
		name string
		obj  any
		want bool
	}{
		{"Delete: its snapshot is deleted through it", content("a", ceph), true},
		{"Retain with the finalizer: only it lifts it", retained("a", ceph, true), true},
		{"Retain without: nothing for it to do", retained("a", ceph, false), false},
		{"no policy read: kept, as if Delete", noPolicy, true},
		{"a tombstone's content", cache.DeletedFinalStateUnknown{Key: "a", Obj: retained("a", ceph, false)}, false},
		{"not unstructured", &metav1.PartialObjectMetadata{}, false},
	} {
		if got := NeedsSnapshotter(tc.obj); got != tc.want {
			t.Errorf("%s: %t, want %t", tc.name, got, tc.want)
		}
	}
}

func TestDriverOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  any
		want string
	}{
		{"content", content("a", ceph), ceph},
		{"its tombstone", cache.DeletedFinalStateUnknown{Key: "a", Obj: content("a", ceph)}, ceph},
		{"no spec", &unstructured.Unstructured{Object: map[string]any{"kind": "VolumeSnapshotContent"}}, ""},
		{"not unstructured", &metav1.PartialObjectMetadata{}, ""},
	} {
		if got := DriverOf(tc.obj); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSlim(t *testing.T) {
	in := content("a", ceph)
	in.SetUID("u")
	in.SetResourceVersion("7")
	in.SetAnnotations(map[string]string{"big": "yes"})
	in.SetFinalizers([]string{"other.example.com/keep"})
	got, err := Slim(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent",
		"metadata": map[string]any{"name": "a", "uid": "u", "resourceVersion": "7"}, "spec": map[string]any{"driver": ceph, "deletionPolicy": "Delete"}}
	if !reflect.DeepEqual(got.(*unstructured.Unstructured).Object, want) {
		t.Errorf("Slim = %v, want %v", got, want)
	}
	got, err = Slim(retained("b", ceph, true))
	if err != nil {
		t.Fatal(err)
	}
	want = map[string]any{"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent",
		"metadata": map[string]any{"name": "b", "finalizers": []any{SnapshotterFinalizer}}, "spec": map[string]any{"driver": ceph, "deletionPolicy": "Retain"}}
	if !reflect.DeepEqual(got.(*unstructured.Unstructured).Object, want) {
		t.Errorf("Slim = %v, want %v", got, want)
	}
}

func TestNamesOf(t *testing.T) {
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for _, c := range []*unstructured.Unstructured{content("z", ceph), content("a", ceph), content("n", nfs),
		retained("kept", ceph, true), retained("left-behind", ceph, false)} {
		if err := store.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	for driver, want := range map[string][]string{ceph: {"a", "kept", "z"}, nfs: {"n"}, "other": nil} {
		if got := NamesOf(store, driver); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", driver, got, want)
		}
	}
}

// The watch lists nothing until asked, answers "not yet" until its first list is in and then calls
// back, calls back on contents of its driver created or deleted only, or no longer needing its
// snapshotter, keeps contents slim, and lists again after Release.
func TestWatch(t *testing.T) {
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{Resource: "VolumeSnapshotContentList"}, content("snap-ceph", ceph), content("snap-nfs", nfs))
	var calls atomic.Int32
	w := New(client, ceph, func() { calls.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if w.on.Current() != nil || len(client.Actions()) != 0 {
		t.Fatalf("a new watch lists: %v", client.Actions())
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	w.Of(ctx)
	// The initial list's content of the driver and the end of the list each call back.
	waitFor("the first list", func() bool { _, known := w.Of(ctx); return known && calls.Load() >= 2 })
	if got, _ := w.Of(ctx); !slices.Equal(got, []string{"snap-ceph"}) {
		t.Errorf("contents of %s: %v", ceph, got)
	}
	obj, _, _ := w.on.Current().GetStore().GetByKey("snap-ceph")
	if _, found, _ := unstructured.NestedFieldNoCopy(obj.(*unstructured.Unstructured).Object, "status"); found {
		t.Errorf("the cache keeps more than the driver: %v", obj)
	}

	before := calls.Load()
	if _, err := client.Resource(Resource).Create(ctx, content("more-nfs", nfs), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.Resource(Resource).Delete(ctx, "snap-ceph", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Handlers run in the order of the events: once the deletion's callback ran, the creation's
	// (filtered out) was handled before it.
	waitFor("the deletion", func() bool { got, _ := w.Of(ctx); return len(got) == 0 && calls.Load() > before })
	if got := calls.Load() - before; got != 1 {
		t.Errorf("%d callbacks for an NFS content created and a CephFS content deleted, want 1", got)
	}

	// A Retain content's finalizer gone (by hand here): it needs the snapshotter no more, and the
	// update calls back.
	if _, err := client.Resource(Resource).Create(ctx, retained("bound", ceph, true), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("a bound Retain content", func() bool { got, _ := w.Of(ctx); return slices.Equal(got, []string{"bound"}) })
	before = calls.Load()
	if _, err := client.Resource(Resource).Update(ctx, retained("bound", ceph, false), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the finalizer lifted", func() bool { got, _ := w.Of(ctx); return len(got) == 0 && calls.Load() > before })

	old := w.on.Current()
	w.Release()
	if w.on.Current() != nil {
		t.Fatal("running after Release")
	}
	if _, err := client.Resource(Resource).Create(ctx, content("again", ceph), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.Of(ctx)
	if w.on.Current() == old {
		t.Error("the released informer is used again")
	}
	waitFor("the second list", func() bool { got, known := w.Of(ctx); return known && slices.Equal(got, []string{"again"}) })
}
