package hosted

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// HostedControlPlaneResource is HyperShift's HostedControlPlane, one in each HCP namespace.
var HostedControlPlaneResource = schema.GroupVersionResource{Group: "hypershift.openshift.io", Version: "v1beta1", Resource: "hostedcontrolplanes"}

// FromHostedControlPlane is the control plane in namespace as its HostedControlPlane describes it:
// spec.controllerAvailabilityPolicy (SingleReplica when unset, as HyperShift defaults it),
// spec.nodeSelector and spec.tolerations. Errors name the field, never quote a value of it.
func FromHostedControlPlane(namespace string, hcp *unstructured.Unstructured) (ControlPlane, error) {
	cp := ControlPlane{Namespace: namespace, Availability: SingleReplica}
	where := fmt.Sprintf("HostedControlPlane %s/%s", namespace, hcp.GetName())
	policy, _, err := unstructured.NestedString(hcp.Object, "spec", "controllerAvailabilityPolicy")
	if err != nil {
		return cp, fmt.Errorf("%s spec.controllerAvailabilityPolicy: %w", where, err)
	}
	if policy != "" {
		cp.Availability = AvailabilityPolicy(policy)
		if _, err := Replicas(cp.Availability); err != nil {
			return cp, fmt.Errorf("%s spec.controllerAvailabilityPolicy: want %s or %s", where, SingleReplica, HighlyAvailable)
		}
	}
	if cp.NodeSelector, _, err = unstructured.NestedStringMap(hcp.Object, "spec", "nodeSelector"); err != nil {
		return cp, fmt.Errorf("%s spec.nodeSelector: %w", where, err)
	}
	tolerations, _, err := unstructured.NestedSlice(hcp.Object, "spec", "tolerations")
	if err != nil {
		return cp, fmt.Errorf("%s spec.tolerations: %w", where, err)
	}
	for i, t := range tolerations {
		m, ok := t.(map[string]any)
		var tol corev1.Toleration
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tol) != nil {
			return cp, fmt.Errorf("%s spec.tolerations[%d]: not a toleration", where, i)
		}
		cp.Tolerations = append(cp.Tolerations, tol)
	}
	return cp, nil
}
