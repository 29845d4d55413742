package hooks

import (
	"slices"

	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// Events is the informer as a controller trigger that passes on the events of the objects keep
// accepts only (a deletion's tombstone included): a workload controller re-runs when an object its
// hooks read changes, not for every neighbour in a busy namespace. The informer's cache is not
// filtered: the hooks' listers read it as before.
func Events(informer cache.SharedIndexInformer, keep func(obj any) bool) factory.Informer {
	// A pointer: library-go keeps a controller's informers as map keys, and a func is not hashable.
	return &filtered{informer: informer, keep: keep}
}

// Named accepts the objects of these names (their namespace is the informer's).
func Named(names ...string) func(obj any) bool {
	return func(obj any) bool {
		m, err := meta.Accessor(unwrap(obj))
		return err == nil && slices.Contains(names, m.GetName())
	}
}

type filtered struct {
	informer cache.SharedIndexInformer
	keep     func(obj any) bool
}

func (f *filtered) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return f.informer.AddEventHandler(cache.FilteringResourceEventHandler{FilterFunc: f.keep, Handler: h})
}

func (f *filtered) HasSynced() bool { return f.informer.HasSynced() }

func unwrap(obj any) any {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tombstone.Obj
	}
	return obj
}
