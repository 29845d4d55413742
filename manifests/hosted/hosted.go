// Package hosted holds how the operator is deployed for a hosted control plane (docs/hosted.md): the
// management cluster's objects, which HyperShift's control-plane operator applies in the hosted
// control plane's namespace, and the guest cluster's RBAC of the identity the guest kubeconfig names.
package hosted

import (
	_ "embed"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
)

var (
	//go:embed management.yaml
	management string
	//go:embed guest.yaml
	guest string
)

// NamespacePlaceholder stands for the hosted control plane's namespace in management.yaml.
const NamespacePlaceholder = "${NAMESPACE}"

// Management returns the management cluster's objects for the hosted control plane in namespace.
func Management(namespace string) ([]*unstructured.Unstructured, error) {
	if namespace == "" {
		return nil, fmt.Errorf("the hosted control plane's namespace is empty")
	}
	return manifests.Decode(strings.ReplaceAll(management, NamespacePlaceholder, namespace))
}

// Guest returns the guest cluster's objects.
func Guest() ([]*unstructured.Unstructured, error) {
	return manifests.Decode(guest)
}
