package storageclasses

import (
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
)

// A sync waits until the cache shows the classes the controller created (the new object, not the one
// a recreate deleted), but never longer than writeSettleTimeout.
func TestWrittenPending(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	class := func(uid string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-gold", UID: types.UID("uid-" + uid)}}
	}
	for _, tc := range []struct {
		name   string
		cached *storagev1.StorageClass
		after  time.Duration
		want   bool
	}{
		{"the cache shows the created class", class("new"), time.Second, false},
		{"the cache lacks it", nil, time.Second, true},
		{"the cache still shows the class a recreate deleted", class("old"), time.Second, true},
		{"the cache never showed it in time", nil, writeSettleTimeout + time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
			if tc.cached != nil {
				if err := indexer.Add(tc.cached); err != nil {
					t.Fatal(err)
				}
			}
			w := written{}
			w.record("csi-manila-gold", "uid-new", now)
			lister := storagelisters.NewStorageClassLister(indexer)
			if got := w.pending(lister, now.Add(tc.after)); got != tc.want {
				t.Errorf("pending = %v, want %v", got, tc.want)
			}
			if got := w.pending(lister, now.Add(tc.after)); got != tc.want {
				t.Errorf("pending asked again = %v, want %v (forgotten only once settled)", got, tc.want)
			}
		})
	}
}
