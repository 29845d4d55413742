// Package ondemand runs an informer only between the first read that needs it and Release: for a
// cache a controller reads rarely and that may be large (the cluster's claims, its snapshot
// contents), which most clusters would otherwise hold for nothing.
package ondemand

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// Informer holds at most one running informer. changed runs once its first list is in and on each
// relevant object created or deleted, so that the caller's sync runs again; an update calls it only
// where it makes an object relevant or no longer (an add or a delete to the filter), since the callers
// read only what decides relevance; there is no resync for the same reason.
type Informer struct {
	newInformer func() cache.SharedIndexInformer
	relevant    func(obj any) bool
	changed     func()

	mu       sync.Mutex
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
}

// New returns an Informer that builds its informer with newInformer (its transform and indexers
// set, not yet run) at the first Get. relevant receives objects and tombstones.
func New(newInformer func() cache.SharedIndexInformer, relevant func(obj any) bool, changed func()) *Informer {
	return &Informer{newInformer: newInformer, relevant: relevant, changed: changed}
}

// Get starts the informer if none runs and returns it, with whether its first list is in. It runs
// until Release or until ctx ends.
func (i *Informer) Get(ctx context.Context) (cache.SharedIndexInformer, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.informer == nil {
		informer := i.newInformer()
		_, _ = informer.AddEventHandler(cache.FilteringResourceEventHandler{
			FilterFunc: i.relevant,
			Handler: cache.ResourceEventHandlerFuncs{
				AddFunc:    func(any) { i.changed() },
				DeleteFunc: func(any) { i.changed() },
			},
		})
		runCtx, stop := context.WithCancel(ctx)
		go informer.RunWithContext(runCtx)
		go func() {
			if cache.WaitForCacheSync(runCtx.Done(), informer.HasSynced) {
				i.changed()
			}
		}()
		i.informer, i.stop = informer, stop
	}
	return i.informer, i.informer.HasSynced()
}

// Current returns the running informer, nil when none runs.
func (i *Informer) Current() cache.SharedIndexInformer {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.informer
}

// Release stops the informer, if one runs, and drops its cache.
func (i *Informer) Release() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.stop != nil {
		i.stop()
	}
	i.informer, i.stop = nil, nil
}
