// Package informercache builds the operator's informer factories so that their caches hold no more
// than the operator reads.
package informercache

import (
	"time"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
)

// Resync is the informers' resync, as library-go's default: every cached object is re-delivered to
// the handlers. Library-go's controllers do not need it (each resyncs every minute on its own); it is
// the net for our own controllers, which run on events only, should a watch ever miss one.
const Resync = 10 * time.Minute

// KubeForNamespaces is library-go's KubeInformersForNamespaces ("" for cluster-scoped objects) whose
// caches drop managedFields, which the operator never reads and which are often the larger part of
// an object, and keep of a Node, a claim or a volume only what the operator reads (Slim).
func KubeForNamespaces(kube kubernetes.Interface, namespaces ...string) v1helpers.KubeInformersForNamespaces {
	factories := map[string]informers.SharedInformerFactory{}
	for _, ns := range namespaces {
		opts := []informers.SharedInformerOption{informers.WithTransform(Slim)}
		if ns != "" {
			opts = append(opts, informers.WithNamespace(ns))
		}
		factories[ns] = informers.NewSharedInformerFactoryWithOptions(kube, Resync, opts...)
	}
	// The "fake" constructor is library-go's only one that takes ready factories; the type is the real one.
	return v1helpers.NewFakeKubeInformersForNamespaces(factories)
}

// LabelledCluster is a factory of cluster-scoped objects that carry the label selector: the
// operator's own ClusterRoles, ClusterRoleBindings, CSIDriver and Namespace, not the cluster's
// hundreds of others.
func LabelledCluster(kube kubernetes.Interface, selector string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, Resync, informers.WithTransform(DropManagedFields),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
}

// Labelled is a factory whose informers hold the namespace's objects that carry the label selector.
func Labelled(kube kubernetes.Interface, namespace, selector string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, Resync, informers.WithTransform(DropManagedFields),
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector }))
}

// Named is a factory whose informers hold one object of the namespace, by name (a field selector, so
// that RBAC may grant list and watch of that name only).
func Named(kube kubernetes.Interface, namespace, name string) informers.SharedInformerFactory {
	return informers.NewSharedInformerFactoryWithOptions(kube, Resync, informers.WithTransform(DropManagedFields),
		informers.WithNamespace(namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + name }))
}

// Slim is DropManagedFields, and of the cluster-scoped kinds the operator caches cluster-wide keeps
// only what it reads, since each is cached once per object of the cluster and never written from
// this cache:
//   - a Node: its name, labels (the control-plane count) and addresses (the machine network); its
//     status (images, conditions, capacity) and annotations are most of its size;
//   - a PersistentVolumeClaim: its name, namespace and spec.storageClassName (a CephFS class is kept
//     while a claim names it); a big cluster holds tens of thousands of claims;
//   - a PersistentVolume: its name and spec.csi.driver (the CephFS instance is kept while a volume
//     of its driver exists).
func Slim(obj any) (any, error) {
	switch o := obj.(type) {
	case *corev1.Node:
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion, Labels: o.Labels},
			Status:     corev1.NodeStatus{Addresses: o.Status.Addresses},
		}, nil
	case *corev1.PersistentVolumeClaim:
		return &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, UID: o.UID, ResourceVersion: o.ResourceVersion},
			Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: o.Spec.StorageClassName},
		}, nil
	case *corev1.PersistentVolume:
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: o.Name, UID: o.UID, ResourceVersion: o.ResourceVersion},
		}
		if o.Spec.CSI != nil {
			pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: o.Spec.CSI.Driver}
		}
		return pv, nil
	}
	return DropManagedFields(obj)
}

// DropManagedFields is an informer transform. An object updated from a cached copy keeps its
// managedFields on the server: an Update with none set leaves them as they are.
func DropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// CRDMetadataOnly keeps of a CustomResourceDefinition its identity only, for informers that read
// whether one exists: a CRD's schema is most of its size, often hundreds of KB.
func CRDMetadataOnly(obj any) (any, error) {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok {
		return DropManagedFields(obj)
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: crd.Name, UID: crd.UID, ResourceVersion: crd.ResourceVersion},
	}, nil
}
