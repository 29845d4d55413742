package informercache

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	policyv1client "k8s.io/client-go/kubernetes/typed/policy/v1"
	policyv1listers "k8s.io/client-go/listers/policy/v1"
)

// SkipsAbsentDeletes is kube, except that a Delete of a PodDisruptionBudget of g.Namespace (without
// options) that g's lister does not hold is answered NotFound without a request. library-go's
// conditional static resources controller deletes each retired object on every sync, every minute and
// on every event of its informers, though its informer of that kind already shows the object gone:
// one DELETE a sync, for good. An object the informer has not seen yet is deleted at the sync its
// arrival triggers. Every other request goes to kube.
func SkipsAbsentDeletes(kube kubernetes.Interface, g Getters) kubernetes.Interface {
	return absentDeletes{Interface: kube, g: g}
}

type absentDeletes struct {
	kubernetes.Interface
	g Getters
}

func (k absentDeletes) PolicyV1() policyv1client.PolicyV1Interface {
	return absentDeletesPolicy{PolicyV1Interface: k.Interface.PolicyV1(), g: k.g}
}

type absentDeletesPolicy struct {
	policyv1client.PolicyV1Interface
	g Getters
}

func (p absentDeletesPolicy) PodDisruptionBudgets(ns string) policyv1client.PodDisruptionBudgetInterface {
	live := p.PolicyV1Interface.PodDisruptionBudgets(ns)
	if ns != p.g.Namespace || p.g.PodDisruptionBudgets == nil {
		return live
	}
	return absentPDBDeletes{PodDisruptionBudgetInterface: live, lister: p.g.PodDisruptionBudgets.PodDisruptionBudgets(ns)}
}

type absentPDBDeletes struct {
	policyv1client.PodDisruptionBudgetInterface
	lister policyv1listers.PodDisruptionBudgetNamespaceLister
}

func (p absentPDBDeletes) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if _, err := p.lister.Get(name); apierrors.IsNotFound(err) && opts.Preconditions == nil && opts.DryRun == nil {
		return apierrors.NewNotFound(policyv1.Resource("poddisruptionbudgets"), name)
	}
	return p.PodDisruptionBudgetInterface.Delete(ctx, name, opts)
}
