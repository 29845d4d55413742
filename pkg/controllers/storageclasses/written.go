package storageclasses

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
	storagelisters "k8s.io/client-go/listers/storage/v1"
)

// writeSettleTimeout bounds the wait for the informer to show a class the controller created: a class
// someone deleted at once may never show.
const writeSettleTimeout = 10 * time.Second

type pendingWrite struct {
	uid types.UID
	at  time.Time
}

// written remembers the classes the controller has just created, until its informer cache shows them.
// A sync planned from a cache that lacks one would take it for missing: right after the recreate of a
// renamed share type's class, the plan would not find the class by the type's ID and would create a
// second class under the new name.
type written map[string]pendingWrite

func (w written) record(name string, uid types.UID, now time.Time) {
	w[name] = pendingWrite{uid: uid, at: now}
}

// pending reports whether the cache still lacks a class the controller created; it forgets the
// classes the cache shows and those older than writeSettleTimeout.
func (w written) pending(classes storagelisters.StorageClassLister, now time.Time) bool {
	waiting := false
	for name, p := range w {
		if sc, err := classes.Get(name); (err == nil && sc.UID == p.uid) || now.Sub(p.at) > writeSettleTimeout {
			delete(w, name)
			continue
		}
		waiting = true
	}
	return waiting
}
