package operatorconfig

import (
	"strings"

	"sigs.k8s.io/yaml"
)

// IsGenericOperatorConfig is whether config.yaml text is cluster-storage-operator's
// GenericOperatorConfig (apiVersion operator.openshift.io/v1alpha1: the operator's serving and TLS
// settings, read by library-go's controllercmd through --config), not this operator's configuration.
func IsGenericOperatorConfig(raw string) bool {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal([]byte(raw), &head); err != nil {
		return false
	}
	return head.Kind == "GenericOperatorConfig" || strings.HasPrefix(head.APIVersion, "operator.openshift.io/")
}
