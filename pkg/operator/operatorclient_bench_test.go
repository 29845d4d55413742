package operator

import "testing"

// testdata/clustercsidriver.json is a ClusterCSIDriver as the operator leaves it in the test world: 22
// conditions written by 13 field managers. library-go's status writer extracts one manager's fields
// from it on every status apply.
func BenchmarkExtractOperatorStatus(b *testing.B) {
	u := readClusterCSIDriver(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extractOperatorStatus(u, "ManilaDriverStaticResourcesController-StaticResources"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkToClusterCSIDriver(b *testing.B) {
	u := readClusterCSIDriver(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toClusterCSIDriver(u); err != nil {
			b.Fatal(err)
		}
	}
}
