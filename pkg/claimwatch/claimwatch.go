// Package claimwatch caches the cluster's PersistentVolumeClaims only while a controller needs them: a
// big cluster holds tens of thousands, and the operator reads them only while it retires a CephFS
// StorageClass (it keeps the class while a claim names it), which most clusters never do.
package claimwatch

import (
	"context"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
)

// ByStorageClass is the name of the index of claims by spec.storageClassName.
const ByStorageClass = "storageClassName"

// IndexByStorageClass indexes a claim by the class it names; a claim naming none is not indexed.
func IndexByStorageClass(obj any) ([]string, error) {
	pvc, ok := obj.(*corev1.PersistentVolumeClaim)
	if !ok || pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName == "" {
		return nil, nil
	}
	return []string{*pvc.Spec.StorageClassName}, nil
}

// KeysNaming returns "namespace/name" of each claim in indexer (indexed ByStorageClass) that names
// class, sorted.
func KeysNaming(indexer cache.Indexer, class string) ([]string, error) {
	keys, err := indexer.IndexKeys(ByStorageClass, class)
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	return keys, nil
}

// Watch is a cache of the cluster's claims that exists only between a Naming call and Release: the
// first Naming starts an informer (claims kept slim, indexed ByStorageClass) and answers "not yet"
// until its first list is in; Release stops it and lets its cache go.
//
// changed runs once the first list is in, and on each claim created or deleted that relevant keeps,
// so that the caller's sync runs again. A claim's spec.storageClassName never changes, so updates do
// not call it.
type Watch struct {
	client   kubernetes.Interface
	relevant func(*corev1.PersistentVolumeClaim) bool
	changed  func()

	mu       sync.Mutex
	informer cache.SharedIndexInformer
	stop     context.CancelFunc
}

// New returns a Watch of client's claims; nothing is listed or watched until Naming.
func New(client kubernetes.Interface, relevant func(*corev1.PersistentVolumeClaim) bool, changed func()) *Watch {
	return &Watch{client: client, relevant: relevant, changed: changed}
}

// Naming returns the keys of the claims naming class (KeysNaming). known is false while the cache is
// being filled: the caller must not act as if no claim named the class, and is called back (changed)
// once it is filled. The informer runs until Release or until ctx ends.
func (w *Watch) Naming(ctx context.Context, class string) (keys []string, known bool, err error) {
	informer := w.start(ctx)
	if !informer.HasSynced() {
		return nil, false, nil
	}
	keys, err = KeysNaming(informer.GetIndexer(), class)
	return keys, err == nil, err
}

// Release stops the informer, if one runs, and drops its cache.
func (w *Watch) Release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
	w.informer, w.stop = nil, nil
}

func (w *Watch) start(ctx context.Context) cache.SharedIndexInformer {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.informer != nil {
		return w.informer
	}
	// No resync: it would deliver updates, which change nothing here.
	informer := corev1informers.NewPersistentVolumeClaimInformer(w.client, metav1.NamespaceAll, 0,
		cache.Indexers{ByStorageClass: IndexByStorageClass})
	_ = informer.SetTransform(informercache.Slim) // cannot fail before Run
	_, _ = informer.AddEventHandler(cache.FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			pvc, ok := obj.(*corev1.PersistentVolumeClaim)
			return ok && w.relevant(pvc)
		},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { w.changed() },
			DeleteFunc: func(obj any) { w.changed() },
		},
	})
	runCtx, stop := context.WithCancel(ctx)
	go informer.RunWithContext(runCtx)
	go func() {
		if cache.WaitForCacheSync(runCtx.Done(), informer.HasSynced) {
			w.changed()
		}
	}()
	w.informer, w.stop = informer, stop
	return informer
}
