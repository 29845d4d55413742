package operator

import (
	"context"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

const (
	// networkPoliciesController applies the operand namespace's network policies (assets.NetworkPolicies).
	networkPoliciesController = "ManilaDriverNetworkPoliciesController"
	// NetworkPoliciesUnapplied is True while the operator may not write network policies: the operand
	// namespace then has none, and nothing else is affected (not Degraded).
	NetworkPoliciesUnapplied = networkPoliciesController + "Unapplied"
	ReasonMissingRight       = "MissingRight"
)

// networkPolicyVerbs are what library-go's static resources controller does with the policies.
var networkPolicyVerbs = []string{"get", "list", "watch", "create", "update"}

// missingNetworkPolicyRights asks the API server which of networkPolicyVerbs the operator lacks in
// the operand namespace. cluster-storage-operator's role for the Manila operator grants them from 5.0
// only; without them the policies' informer would never sync.
func missingNetworkPolicyRights(ctx context.Context, kube kubernetes.Interface) ([]string, error) {
	var missing []string
	for _, verb := range networkPolicyVerbs {
		review, err := kube.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: names.OperandNamespace, Verb: verb, Group: "networking.k8s.io", Resource: "networkpolicies"}},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		if !review.Status.Allowed {
			missing = append(missing, verb)
		}
	}
	return missing, nil
}

// reportNetworkPolicies sets NetworkPoliciesUnapplied naming the missing right, or removes it.
func reportNetworkPolicies(ctx context.Context, c *clients, missing []string) error {
	if len(missing) == 0 {
		return removeConditions(ctx, c, []string{NetworkPoliciesUnapplied})
	}
	msg := fmt.Sprintf("The operator's ServiceAccount may not %s networkpolicies.networking.k8s.io in namespace %s "+
		"(cluster-storage-operator grants it from OpenShift 5.0): that namespace gets no network policies; nothing else is affected",
		strings.Join(missing, ", "), names.OperandNamespace)
	klog.Warning(msg)
	return setCondition(ctx, c, operatorv1.OperatorCondition{Type: NetworkPoliciesUnapplied, Status: operatorv1.ConditionTrue,
		Reason: ReasonMissingRight, Message: msg})
}
