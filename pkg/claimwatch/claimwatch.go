// Package claimwatch caches the cluster's PersistentVolumeClaims only while a controller needs them: a
// big cluster holds tens of thousands, and the operator reads them only while it retires a CephFS
// StorageClass (it keeps the class while a claim names it), which most clusters never do.
package claimwatch

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/ondemand"
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
type Watch struct{ on *ondemand.Informer }

// New returns a Watch of client's claims; nothing is listed or watched until Naming.
func New(client kubernetes.Interface, relevant func(*corev1.PersistentVolumeClaim) bool, changed func()) *Watch {
	newInformer := func() cache.SharedIndexInformer {
		informer := corev1informers.NewPersistentVolumeClaimInformer(client, metav1.NamespaceAll, 0,
			cache.Indexers{ByStorageClass: IndexByStorageClass})
		_ = informer.SetTransform(informercache.Slim) // cannot fail before Run
		return informer
	}
	isRelevant := func(obj any) bool {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		pvc, ok := obj.(*corev1.PersistentVolumeClaim)
		return ok && relevant(pvc)
	}
	return &Watch{on: ondemand.New(newInformer, isRelevant, changed)}
}

// Naming returns the keys of the claims naming class (KeysNaming). known is false while the cache is
// being filled: the caller must not act as if no claim named the class, and is called back (changed)
// once it is filled. The informer runs until Release or until ctx ends.
func (w *Watch) Naming(ctx context.Context, class string) (keys []string, known bool, err error) {
	informer, synced := w.on.Get(ctx)
	if !synced {
		return nil, false, nil
	}
	keys, err = KeysNaming(informer.GetIndexer(), class)
	return keys, err == nil, err
}

// Release stops the informer, if one runs, and drops its cache.
func (w *Watch) Release() { w.on.Release() }
