package informercache

import (
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core"
	corev1informers "k8s.io/client-go/informers/core/v1"
	policyinformers "k8s.io/client-go/informers/policy"
	policyv1informers "k8s.io/client-go/informers/policy/v1"
)

// Routes name, for some kinds, the informer a routed factory returns instead of its own. A nil field
// leaves that kind to the factory.
type Routes struct {
	Namespaces           corev1informers.NamespaceInformer
	ConfigMaps           corev1informers.ConfigMapInformer
	ServiceAccounts      corev1informers.ServiceAccountInformer
	Services             corev1informers.ServiceInformer
	PodDisruptionBudgets policyv1informers.PodDisruptionBudgetInformer
}

// Routed is factory f whose informers of the kinds in r are r's. library-go's static-resources
// controller takes each asset's informer from the factory of the asset's namespace, which caches
// every object of that kind there: with r's informers (a labelled or Named factory's) it caches
// what the operator applies only, where the namespace is busy (the cluster's Namespaces; hosted, the
// HCP namespace's ConfigMaps, ServiceAccounts, Services and PDBs, the whole control plane's). The
// informers in r belong to their own factories, which must be started.
func Routed(f informers.SharedInformerFactory, r Routes) informers.SharedInformerFactory {
	return routed{SharedInformerFactory: f, r: r}
}

// WithNamespacesFrom is Routed with the Namespace informer only: the static-resources controller takes
// a Namespace asset's informer from the factory of that namespace (InformersFor(name)), which,
// namespaced or not, caches every Namespace of the cluster; the labelled factory's holds the
// operator's own only.
func WithNamespacesFrom(f informers.SharedInformerFactory, namespaces corev1informers.NamespaceInformer) informers.SharedInformerFactory {
	return Routed(f, Routes{Namespaces: namespaces})
}

type routed struct {
	informers.SharedInformerFactory
	r Routes
}

func (f routed) Core() coreinformers.Interface {
	return routedCore{Interface: f.SharedInformerFactory.Core(), r: f.r}
}

func (f routed) Policy() policyinformers.Interface {
	return routedPolicy{Interface: f.SharedInformerFactory.Policy(), r: f.r}
}

type routedCore struct {
	coreinformers.Interface
	r Routes
}

func (c routedCore) V1() corev1informers.Interface {
	return routedCoreV1{Interface: c.Interface.V1(), r: c.r}
}

type routedCoreV1 struct {
	corev1informers.Interface
	r Routes
}

func (v routedCoreV1) Namespaces() corev1informers.NamespaceInformer {
	return or(v.r.Namespaces, v.Interface.Namespaces)
}

func (v routedCoreV1) ConfigMaps() corev1informers.ConfigMapInformer {
	return or(v.r.ConfigMaps, v.Interface.ConfigMaps)
}

func (v routedCoreV1) ServiceAccounts() corev1informers.ServiceAccountInformer {
	return or(v.r.ServiceAccounts, v.Interface.ServiceAccounts)
}

func (v routedCoreV1) Services() corev1informers.ServiceInformer {
	return or(v.r.Services, v.Interface.Services)
}

type routedPolicy struct {
	policyinformers.Interface
	r Routes
}

func (p routedPolicy) V1() policyv1informers.Interface {
	return routedPolicyV1{Interface: p.Interface.V1(), r: p.r}
}

type routedPolicyV1 struct {
	policyv1informers.Interface
	r Routes
}

func (v routedPolicyV1) PodDisruptionBudgets() policyv1informers.PodDisruptionBudgetInformer {
	return or(v.r.PodDisruptionBudgets, v.Interface.PodDisruptionBudgets)
}

// or is the routed informer when there is one, else the factory's own.
func or[T any](routed T, own func() T) T {
	if any(routed) != nil {
		return routed
	}
	return own()
}
