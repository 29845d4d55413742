package claimwatch

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func claim(namespace, name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, VolumeName: "pv-" + name}}
}

func TestIndexByStorageClass(t *testing.T) {
	gold, empty := "gold", ""
	for _, tc := range []struct {
		obj  any
		want []string
	}{
		{claim("a", "b", &gold), []string{"gold"}},
		{claim("a", "b", &empty), nil}, // the cluster's default class, not a class of that name
		{claim("a", "b", nil), nil},
		{&corev1.ConfigMap{}, nil},
	} {
		got, err := IndexByStorageClass(tc.obj)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v %v, want %v", tc.obj, got, err, tc.want)
		}
	}
}

func TestKeysNaming(t *testing.T) {
	gold, silver := "gold", "silver"
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{ByStorageClass: IndexByStorageClass})
	for _, pvc := range []*corev1.PersistentVolumeClaim{claim("z", "a", &gold), claim("a", "z", &gold), claim("a", "s", &silver), claim("a", "none", nil)} {
		if err := indexer.Add(pvc); err != nil {
			t.Fatal(err)
		}
	}
	for class, want := range map[string][]string{"gold": {"a/z", "z/a"}, "silver": {"a/s"}, "bronze": nil} {
		if got, err := KeysNaming(indexer, class); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %v %v, want %v", class, got, err, want)
		}
	}
}

// The watch lists nothing until asked, answers "not yet" until its first list is in and then calls
// back, calls back on relevant claims created or deleted only, keeps claims slim, and lists again
// after Release.
func TestWatch(t *testing.T) {
	ceph, nfs := "manila-cephfs-a", "csi-manila-a"
	kube := fake.NewClientset(claim("apps", "data", &ceph), claim("apps", "web", &nfs))
	var calls atomic.Int32
	w := New(kube, func(pvc *corev1.PersistentVolumeClaim) bool {
		return pvc.Spec.StorageClassName != nil && strings.HasPrefix(*pvc.Spec.StorageClassName, "manila-cephfs-")
	}, func() { calls.Add(1) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if w.on.Current() != nil || len(kube.Actions()) != 0 {
		t.Fatalf("a new watch lists: %v", kube.Actions())
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil }); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	naming := func(class string) ([]string, bool) {
		t.Helper()
		keys, known, err := w.Naming(ctx, class)
		if err != nil {
			t.Fatal(err)
		}
		return keys, known
	}

	naming(ceph)
	// The initial list's relevant claim and the end of the list each call back.
	waitFor("the first list", func() bool { _, known := naming(ceph); return known && calls.Load() >= 2 })
	if keys, _ := naming(ceph); !slices.Equal(keys, []string{"apps/data"}) {
		t.Errorf("claims naming %s: %v", ceph, keys)
	}
	obj, _, _ := w.on.Current().GetIndexer().GetByKey("apps/data")
	if obj.(*corev1.PersistentVolumeClaim).Spec.VolumeName != "" {
		t.Errorf("the cache keeps more than the class: %+v", obj)
	}

	before := calls.Load()
	if _, err := kube.CoreV1().PersistentVolumeClaims("apps").Create(ctx, claim("apps", "more-web", &nfs), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kube.CoreV1().PersistentVolumeClaims("apps").Delete(ctx, "data", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Handlers run after the cache changes, and in the order of the events: once the deletion's
	// callback ran, the creation's (filtered out) was handled before it.
	waitFor("the deletion", func() bool { keys, _ := naming(ceph); return len(keys) == 0 && calls.Load() > before })
	if got := calls.Load() - before; got != 1 {
		t.Errorf("%d callbacks for an NFS claim created and a CephFS claim deleted, want 1", got)
	}

	old := w.on.Current()
	w.Release()
	if w.on.Current() != nil {
		t.Fatal("running after Release")
	}
	if _, err := kube.CoreV1().PersistentVolumeClaims("apps").Create(ctx, claim("apps", "again", &ceph), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	naming(ceph)
	if w.on.Current() == old {
		t.Error("the released informer is used again")
	}
	waitFor("the second list", func() bool { keys, known := naming(ceph); return known && slices.Equal(keys, []string{"apps/again"}) })
}
