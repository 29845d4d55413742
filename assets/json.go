package assets

import (
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"
)

// JSONAssetFunc renders every asset once with v and returns a library-go AssetFunc over the results
// converted to JSON: the same objects, which library-go's decoders recognize as JSON and decode
// without converting YAML to JSON first. library-go's controllers decode their manifests again on
// every sync (each static resource, the controller Deployment and the node DaemonSets, every minute at
// rest), so the YAML parse would otherwise be repeated for the life of the process. The placeholders
// library-go replaces as text after this (images, log level, leader election) stand inside string
// values, and their values (the operator's environment, an enum, constants) need no JSON escaping
// (TestJSONAssetsDecodeAsTheYAML). No value from the cluster is replaced as text: pkg/hooks
// ClusterValues fills those after the decode.
func (v Vars) JSONAssetFunc() (func(string) ([]byte, error), error) {
	rendered := map[string][]byte{}
	for _, name := range Names() {
		data, err := v.Render(name)
		if err != nil {
			return nil, err
		}
		if rendered[name], err = yaml.YAMLToJSON(data); err != nil {
			return nil, fmt.Errorf("asset %q: %w", name, err)
		}
	}
	return func(name string) ([]byte, error) {
		data, ok := rendered[name]
		if !ok {
			return nil, fmt.Errorf("unknown asset %q", name)
		}
		// A copy: callers own what they are given, as with Render.
		return slices.Clone(data), nil
	}, nil
}
