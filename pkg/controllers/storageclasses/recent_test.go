package storageclasses

import (
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// testRecent is an empty mutation cache over an empty informer store.
func testRecent() cache.MutationCache {
	return recentOver(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}))
}

func recentOver(indexer cache.Indexer) cache.MutationCache {
	return cache.NewIntegerResourceVersionMutationCache(klog.Background(), indexer, indexer, writeSettleTimeout, true)
}

// A sync sees the classes the controller created even before its informer does (the new object, not
// the one a recreate deleted), and the informer's copy once that is as new or newer.
func TestListClassesSeesOwnWrites(t *testing.T) {
	class := func(name, uid, rv string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid), ResourceVersion: rv}}
	}
	created := class("csi-manila-gold", "uid-new", "7")
	for _, tc := range []struct {
		name    string
		cached  []*storagev1.StorageClass
		wantUID map[string]types.UID
	}{
		{"the informer lacks the created class", nil,
			map[string]types.UID{"csi-manila-gold": "uid-new"}},
		{"the informer still shows the class a recreate deleted", []*storagev1.StorageClass{class("csi-manila-gold", "uid-old", "5")},
			map[string]types.UID{"csi-manila-gold": "uid-new"}},
		{"the informer shows the created class", []*storagev1.StorageClass{created},
			map[string]types.UID{"csi-manila-gold": "uid-new"}},
		{"the informer shows a newer object under the name", []*storagev1.StorageClass{class("csi-manila-gold", "uid-other", "9")},
			map[string]types.UID{"csi-manila-gold": "uid-other"}},
		{"other classes are listed as the informer shows them", []*storagev1.StorageClass{class("standard", "uid-std", "3")},
			map[string]types.UID{"csi-manila-gold": "uid-new", "standard": "uid-std"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for _, sc := range tc.cached {
				if err := indexer.Add(sc); err != nil {
					t.Fatal(err)
				}
			}
			c := &Controller{recent: recentOver(indexer)}
			c.recent.Mutation(created.DeepCopy())
			for range 2 { // asked again: the same answer
				all, err := c.listClasses()
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]types.UID{}
				for _, sc := range all {
					got[sc.Name] = sc.UID
				}
				if len(got) != len(tc.wantUID) {
					t.Errorf("listed %v, want %v", got, tc.wantUID)
				}
				for name, uid := range tc.wantUID {
					if got[name] != uid {
						t.Errorf("class %s has UID %q, want %q", name, got[name], uid)
					}
				}
			}
		})
	}
}
