// Package manifests holds how the operator is deployed on a cluster: the CVO payload files, in apply
// order. Tests apply them to the test world and run the operator under their ServiceAccount.
package manifests

import (
	"embed"
	"fmt"
	"io"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

//go:embed *.yaml
var files embed.FS

// Prefix starts every file name: CVO run level 50, then the component.
const Prefix = "0000_50_manila-csi-driver-operator_"

// File is one manifest file with its objects.
type File struct {
	Name    string
	Objects []*unstructured.Unstructured
}

// Files returns every manifest file in name order, which is the order the CVO applies them in.
func Files() ([]File, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var out []File
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		objs, err := Decode(string(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, File{Name: name, Objects: objs})
	}
	return out, nil
}

// Objects returns every object of every file, in apply order.
func Objects() ([]*unstructured.Unstructured, error) {
	fs, err := Files()
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, f := range fs {
		out = append(out, f.Objects...)
	}
	return out, nil
}

// Decode returns the objects of a stream of YAML or JSON documents, skipping empty ones.
func Decode(data string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(obj.Object) > 0 {
			out = append(out, obj)
		}
	}
}

// Deployment returns the operator's Deployment, for tests that start the binary the way it runs.
func Deployment() (*appsv1.Deployment, error) {
	objs, err := Objects()
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			d := &appsv1.Deployment{}
			return d, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, d)
		}
	}
	return nil, fmt.Errorf("no Deployment in the manifests")
}

// EnvValue returns the literal value of a container's environment variable, or "".
func EnvValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
