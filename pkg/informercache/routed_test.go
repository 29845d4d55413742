package informercache

import (
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// Each routed kind is the named factory's informer; every other kind stays the namespace factory's.
func TestRouted(t *testing.T) {
	kube := fake.NewClientset()
	ns := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithNamespace("hcp"))
	ca, sa, svc, pdb := Named(kube, "hcp", "ca"), Named(kube, "hcp", "sa"), Named(kube, "hcp", "svc"), Named(kube, "hcp", "pdb")
	f := Routed(ns, Routes{ConfigMaps: ca.Core().V1().ConfigMaps(), ServiceAccounts: sa.Core().V1().ServiceAccounts(),
		Services: svc.Core().V1().Services(), PodDisruptionBudgets: pdb.Policy().V1().PodDisruptionBudgets()})
	for _, tc := range []struct {
		kind      string
		got, want cache.SharedIndexInformer
		own       cache.SharedIndexInformer
	}{
		{"ConfigMaps", f.Core().V1().ConfigMaps().Informer(), ca.Core().V1().ConfigMaps().Informer(), ns.Core().V1().ConfigMaps().Informer()},
		{"ServiceAccounts", f.Core().V1().ServiceAccounts().Informer(), sa.Core().V1().ServiceAccounts().Informer(), ns.Core().V1().ServiceAccounts().Informer()},
		{"Services", f.Core().V1().Services().Informer(), svc.Core().V1().Services().Informer(), ns.Core().V1().Services().Informer()},
		{"PodDisruptionBudgets", f.Policy().V1().PodDisruptionBudgets().Informer(), pdb.Policy().V1().PodDisruptionBudgets().Informer(), ns.Policy().V1().PodDisruptionBudgets().Informer()},
		{"Secrets (not routed)", f.Core().V1().Secrets().Informer(), ns.Core().V1().Secrets().Informer(), nil},
		{"Namespaces (not routed)", f.Core().V1().Namespaces().Informer(), ns.Core().V1().Namespaces().Informer(), nil},
		{"Deployments (not routed)", f.Apps().V1().Deployments().Informer(), ns.Apps().V1().Deployments().Informer(), nil},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: not the expected factory's informer", tc.kind)
		}
		if tc.own != nil && tc.own == tc.want {
			t.Errorf("%s: the namespace factory's own informer is the routed one: the test proves nothing", tc.kind)
		}
	}
}
