package storageclasses

import (
	"fmt"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// writeSettleTimeout bounds how long a class the controller wrote is preferred to what the informer
// shows: a class someone deleted at once may never show.
const writeSettleTimeout = 10 * time.Second

// newRecentClasses returns client-go's mutation cache over the StorageClass informer: the classes the
// controller just created stay visible, and newer than the cached copies they replace, until the
// informer catches up. A sync planned from a cache that lacks a created class would take it for
// missing: right after the recreate of a renamed share type's class, the plan would not find the
// class by the type's ID and would create a second class under the new name. Only creates are
// recorded: the mutation cache cannot forget a class the controller deletes, so an updated class
// pruned soon after would read as present again (a stale update only fails with a conflict and is
// planned again).
func newRecentClasses(informer cache.SharedIndexInformer) cache.MutationCache {
	return cache.NewIntegerResourceVersionMutationCache(klog.Background(), informer.GetStore(), informer.GetIndexer(), writeSettleTimeout, true)
}

// listClasses lists every class the informer shows, each replaced by what the controller created since
// if that is newer, and the classes it created that the informer does not show yet.
func (c *Controller) listClasses() ([]*storagev1.StorageClass, error) {
	objs, err := c.recent.ByIndex(cache.NamespaceIndex, "") // cluster-scoped: the namespace is ""
	if err != nil {
		return nil, err
	}
	classes := make([]*storagev1.StorageClass, 0, len(objs))
	for _, obj := range objs {
		sc, ok := obj.(*storagev1.StorageClass)
		if !ok {
			return nil, fmt.Errorf("unexpected %T in the StorageClass cache", obj)
		}
		classes = append(classes, sc)
	}
	return classes, nil
}
