package main

import (
	"fmt"
	"os"

	operatorv1alpha1 "github.com/openshift/api/operator/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// checkGenericConfig reads --config as controllercmd will (YAML to JSON, an object with apiVersion and
// kind, a GenericOperatorConfig) and says what is wrong with it without quoting it. controllercmd
// exits on such a file before any controller runs, so the pod would restart forever without saying
// why on the ClusterCSIDriver; the start command instead runs without it and reports the problem.
func checkGenericConfig(path string) error {
	content, err := os.ReadFile(path)
	if err != nil || len(content) == 0 {
		return nil // controllercmd's own handling: unreadable is its error, empty is no config
	}
	data, err := kyaml.ToJSON(content)
	if err != nil {
		return fmt.Errorf("it is not YAML")
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil || obj.GetKind() == "" || obj.GetAPIVersion() == "" {
		return fmt.Errorf("it is no object with an apiVersion and a kind")
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &operatorv1alpha1.GenericOperatorConfig{}); err != nil {
		return fmt.Errorf("it is no GenericOperatorConfig (a field has the wrong type)")
	}
	return nil
}
