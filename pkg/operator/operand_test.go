package operator

import (
	"testing"

	opv1 "github.com/openshift/api/operator/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestTLSObserved(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{raw: "", want: false},
		{raw: `{}`, want: false},
		{raw: `{"targetcsiconfig":{"proxy":{}}}`, want: false},
		{raw: `{"targetcsiconfig":{"servingInfo":{"minTLSVersion":"VersionTLS12"}}}`, want: true},
		// A Custom profile without ciphers or version the observer knows is observed all the same:
		// the controller service then reports it instead of never starting.
		{raw: `{"targetcsiconfig":{"servingInfo":{"cipherSuites":[],"minTLSVersion":""}}}`, want: true},
		{raw: `{"targetcsiconfig":{"servingInfo":{"cipherSuites":["TLS_AES_128_GCM_SHA256"],"minTLSVersion":"VersionTLS12"}}}`, want: true},
		{raw: `not json`, want: false},
	} {
		spec := &opv1.OperatorSpec{ObservedConfig: runtime.RawExtension{Raw: []byte(tc.raw)}}
		if got := tlsObserved(spec); got != tc.want {
			t.Errorf("tlsObserved(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
