package assets

import (
	"bytes"
	"strings"
	"testing"

	"encoding/json"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"k8s.io/apimachinery/pkg/api/equality"
)

// libraryGoValues are values of the kind library-go (and, after the decode, pkg/hooks) puts in place
// of the placeholders after the AssetFunc: a cipher-suite list, a TLS version, a cluster ID,
// durations, a log level, image names.
var libraryGoValues = map[string]string{
	"${DRIVER_IMAGE}": "quay.io/test/manila:1", "${PROVISIONER_IMAGE}": "quay.io/test/provisioner:1",
	"${RESIZER_IMAGE}": "quay.io/test/resizer:1", "${SNAPSHOTTER_IMAGE}": "quay.io/test/snapshotter:1",
	"${NODE_DRIVER_REGISTRAR_IMAGE}": "quay.io/test/registrar:1", "${LIVENESS_PROBE_IMAGE}": "quay.io/test/probe:1",
	"${KUBE_RBAC_PROXY_IMAGE}": "quay.io/test/proxy@sha256:0123", "${LOG_LEVEL}": "2",
	"${OBSERVED_TLS_CIPHER_SUITES}": "TLS_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"${OBSERVED_TLS_MIN_VERSION}":   "VersionTLS12", "${INFRASTRUCTURE_NAME}": "ostest-x7k2p",
	"${LEADER_ELECTION_LEASE_DURATION}": "137s", "${LEADER_ELECTION_RENEW_DEADLINE}": "107s",
	"${LEADER_ELECTION_RETRY_PERIOD}": "26s",
}

func fillLibraryGoPlaceholders(data []byte) []byte {
	for placeholder, value := range libraryGoValues {
		data = bytes.ReplaceAll(data, []byte(placeholder), []byte(value))
	}
	return data
}

// Every asset, as JSON, is the object its YAML is once library-go has filled its placeholders in both,
// and is valid JSON (so that library-go's decoders take it as JSON).
func TestJSONAssetsDecodeAsTheYAML(t *testing.T) {
	asJSON, err := testVars.JSONAssetFunc()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			j, err := asJSON(name)
			if err != nil {
				t.Fatal(err)
			}
			j = fillLibraryGoPlaceholders(j)
			if !json.Valid(j) {
				t.Fatalf("not valid JSON once library-go's placeholders are filled:\n%s", j)
			}
			fromJSON, err := resourceread.ReadGenericWithUnstructured(j)
			if err != nil {
				t.Fatal(err)
			}
			fromYAML, err := resourceread.ReadGenericWithUnstructured(fillLibraryGoPlaceholders(render(t, name)))
			if err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(fromJSON, fromYAML) {
				t.Errorf("decoded from JSON:\n%#v\nfrom YAML:\n%#v", fromJSON, fromYAML)
			}
		})
	}
	if _, err := asJSON("missing.yaml"); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("an unknown asset gave %v, want an error naming it", err)
	}
}

// What library-go's controllers decode on each sync: every asset once, as the static resources,
// Deployment and DaemonSet controllers read them (resourceread), from YAML and from JSON.
func BenchmarkDecodeAssets(b *testing.B) {
	asJSON, err := testVars.JSONAssetFunc()
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []struct {
		name   string
		assets func(string) ([]byte, error)
	}{{"yaml", testVars.AssetFunc()}, {"json", asJSON}} {
		b.Run(format.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, name := range Names() {
					data, err := format.assets(name)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := resourceread.ReadGenericWithUnstructured(fillLibraryGoPlaceholders(data)); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
