// Package cachedclient answers the reads library-go's apply functions make (a GET of the object
// before comparing it with the rendered one) from informer caches, so that re-applying an unchanged
// object costs no kube-apiserver request. Everything else goes to the cluster as before.
package cachedclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	storagev1client "k8s.io/client-go/kubernetes/typed/storage/v1"
)

// Informers gives the informer factory for a namespace ("" for cluster-scoped objects); it is
// library-go's v1helpers.KubeInformersForNamespaces.
type Informers interface {
	InformersFor(namespace string) informers.SharedInformerFactory
}

// Clientset is a kubernetes.Interface whose Gets of the operand's kinds in namespace (and of the
// cluster-scoped RBAC, CSIDriver and Namespace kinds, from the factory for "") read the informer
// caches.
type Clientset struct {
	kubernetes.Interface
	namespaced, cluster informers.SharedInformerFactory
	namespace           string
}

// New wraps kube. The informers it reads are registered here, before the factories start, so they
// are started with them; a read the cache cannot answer (not synced yet, or not there) goes to the
// cluster, so a cache never turns an existing object into a create.
func New(kube kubernetes.Interface, inf Informers, namespace string) *Clientset {
	c := &Clientset{Interface: kube, namespaced: inf.InformersFor(namespace), cluster: inf.InformersFor(""), namespace: namespace}
	n, cl := c.namespaced, c.cluster
	for _, register := range []func(){
		func() { n.Core().V1().ServiceAccounts().Informer() },
		func() { n.Core().V1().ConfigMaps().Informer() },
		func() { n.Core().V1().Services().Informer() },
		func() { n.Rbac().V1().Roles().Informer() },
		func() { n.Rbac().V1().RoleBindings().Informer() },
		func() { n.Apps().V1().Deployments().Informer() },
		func() { n.Apps().V1().DaemonSets().Informer() },
		func() { n.Policy().V1().PodDisruptionBudgets().Informer() },
		func() { cl.Rbac().V1().ClusterRoles().Informer() },
		func() { cl.Rbac().V1().ClusterRoleBindings().Informer() },
		func() { cl.Storage().V1().CSIDrivers().Informer() },
		func() { cl.Core().V1().Namespaces().Informer() },
	} {
		register()
	}
	return c
}

// cachedGet answers from the cache unless the caller asks for a specific resourceVersion or the
// cache does not have the object.
func cachedGet[T runtime.Object](ctx context.Context, name string, opts metav1.GetOptions,
	cached func(string) (T, error), live func(context.Context, string, metav1.GetOptions) (T, error)) (T, error) {
	if opts.ResourceVersion == "" {
		if obj, err := cached(name); err == nil {
			return obj.DeepCopyObject().(T), nil
		}
	}
	return live(ctx, name, opts)
}

func (c *Clientset) CoreV1() corev1client.CoreV1Interface {
	return coreV1{CoreV1Interface: c.Interface.CoreV1(), c: c}
}

func (c *Clientset) RbacV1() rbacv1client.RbacV1Interface {
	return rbacV1{RbacV1Interface: c.Interface.RbacV1(), c: c}
}

func (c *Clientset) AppsV1() appsv1client.AppsV1Interface {
	return appsV1{AppsV1Interface: c.Interface.AppsV1(), c: c}
}

func (c *Clientset) PolicyV1() policyv1client.PolicyV1Interface {
	return policyV1{PolicyV1Interface: c.Interface.PolicyV1(), c: c}
}

func (c *Clientset) StorageV1() storagev1client.StorageV1Interface {
	return storageV1{StorageV1Interface: c.Interface.StorageV1(), c: c}
}
