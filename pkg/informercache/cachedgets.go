package informercache

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	policyv1listers "k8s.io/client-go/listers/policy/v1"
)

// Getters are the listers CachedGets serves a namespace's reads from.
type Getters struct {
	Namespace            string
	ServiceAccounts      corev1listers.ServiceAccountLister
	Services             corev1listers.ServiceLister
	PodDisruptionBudgets policyv1listers.PodDisruptionBudgetLister
}

// CachedGets is kube, except that a Get of a ServiceAccount, Service or PodDisruptionBudget of
// g.Namespace (without options) is answered from g's listers, as library-go's CachedConfigMapGetter
// answers its ConfigMaps: library-go's static resources controller reads each object it applies with
// a Get every minute, though its informers already hold them. A Get the cache cannot answer goes to
// the API server, so a create is only tried for an object the API server does not have. Writes and
// every other read go to kube.
func CachedGets(kube kubernetes.Interface, g Getters) kubernetes.Interface {
	return cachedKube{Interface: kube, g: g}
}

// SkipsAbsentDeletes is CachedGets, and a Delete of a PodDisruptionBudget of g.Namespace (without
// preconditions or dry run) that g's lister does not hold is answered NotFound without a request.
// library-go's conditional static resources controller deletes each retired object on every sync,
// every minute and on every event of its informers, though its informer of that kind already shows
// the object gone: one DELETE a sync, for good. An object the informer has not seen yet is deleted at
// the sync its arrival triggers.
func SkipsAbsentDeletes(kube kubernetes.Interface, g Getters) kubernetes.Interface {
	return cachedKube{Interface: kube, g: g, skipAbsentDeletes: true}
}

type cachedKube struct {
	kubernetes.Interface
	g                 Getters
	skipAbsentDeletes bool
}

func (k cachedKube) CoreV1() corev1client.CoreV1Interface {
	return cachedCore{CoreV1Interface: k.Interface.CoreV1(), g: k.g}
}

func (k cachedKube) PolicyV1() policyv1client.PolicyV1Interface {
	return cachedPolicy{PolicyV1Interface: k.Interface.PolicyV1(), g: k.g, skipAbsentDeletes: k.skipAbsentDeletes}
}

type cachedCore struct {
	corev1client.CoreV1Interface
	g Getters
}

func (c cachedCore) ServiceAccounts(ns string) corev1client.ServiceAccountInterface {
	live := c.CoreV1Interface.ServiceAccounts(ns)
	if ns != c.g.Namespace || c.g.ServiceAccounts == nil {
		return live
	}
	return cachedServiceAccounts{ServiceAccountInterface: live, lister: c.g.ServiceAccounts.ServiceAccounts(ns)}
}

func (c cachedCore) Services(ns string) corev1client.ServiceInterface {
	live := c.CoreV1Interface.Services(ns)
	if ns != c.g.Namespace || c.g.Services == nil {
		return live
	}
	return cachedServices{ServiceInterface: live, lister: c.g.Services.Services(ns)}
}

type cachedPolicy struct {
	policyv1client.PolicyV1Interface
	g                 Getters
	skipAbsentDeletes bool
}

func (p cachedPolicy) PodDisruptionBudgets(ns string) policyv1client.PodDisruptionBudgetInterface {
	live := p.PolicyV1Interface.PodDisruptionBudgets(ns)
	if ns != p.g.Namespace || p.g.PodDisruptionBudgets == nil {
		return live
	}
	return cachedPDBs{PodDisruptionBudgetInterface: live, lister: p.g.PodDisruptionBudgets.PodDisruptionBudgets(ns), skipAbsentDeletes: p.skipAbsentDeletes}
}

type cachedServiceAccounts struct {
	corev1client.ServiceAccountInterface
	lister corev1listers.ServiceAccountNamespaceLister
}

func (s cachedServiceAccounts) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ServiceAccount, error) {
	return cachedGet(ctx, name, opts, s.lister.Get, s.ServiceAccountInterface.Get, (*corev1.ServiceAccount).DeepCopy)
}

type cachedServices struct {
	corev1client.ServiceInterface
	lister corev1listers.ServiceNamespaceLister
}

func (s cachedServices) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.Service, error) {
	return cachedGet(ctx, name, opts, s.lister.Get, s.ServiceInterface.Get, (*corev1.Service).DeepCopy)
}

type cachedPDBs struct {
	policyv1client.PodDisruptionBudgetInterface
	lister            policyv1listers.PodDisruptionBudgetNamespaceLister
	skipAbsentDeletes bool
}

func (p cachedPDBs) Get(ctx context.Context, name string, opts metav1.GetOptions) (*policyv1.PodDisruptionBudget, error) {
	return cachedGet(ctx, name, opts, p.lister.Get, p.PodDisruptionBudgetInterface.Get, (*policyv1.PodDisruptionBudget).DeepCopy)
}

func (p cachedPDBs) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if p.skipAbsentDeletes && opts.Preconditions == nil && opts.DryRun == nil {
		if _, err := p.lister.Get(name); apierrors.IsNotFound(err) {
			return err
		}
	}
	return p.PodDisruptionBudgetInterface.Delete(ctx, name, opts)
}

// cachedGet answers from the cache (a copy: callers may change what they get) when opts ask for
// nothing particular and the cache has name, else from the API server.
func cachedGet[T any](ctx context.Context, name string, opts metav1.GetOptions, cached func(string) (*T, error),
	live func(context.Context, string, metav1.GetOptions) (*T, error), deepCopy func(*T) *T) (*T, error) {
	if opts == (metav1.GetOptions{}) {
		if obj, err := cached(name); err == nil {
			return deepCopy(obj), nil
		}
	}
	return live(ctx, name, opts)
}
