package clusterinput

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostile are values a guest's admin can write into a field the operator reads: each would become
// structure of a manifest if taken as text.
var hostile = []string{
	`x","extra":"y`, "x\ny", "x}", `x"`, "a: b\nc: d", `{"containers":[{"name":"evil"}]}`,
	"- --kubeconfig=/etc/hosted-kubernetes/kubeconfig", strings.Repeat("a", 64), "ünïcode", "UPPER", "-x", "x-",
	"x y", "x\ty", "$(POD_NAME)",
}

func TestInfrastructureName(t *testing.T) {
	for _, ok := range []string{"", "ostest-x7k2p", "a", strings.Repeat("a", 63), "manila-guest"} {
		if err := InfrastructureName(ok); err != nil {
			t.Errorf("InfrastructureName(%q): %v", ok, err)
		}
	}
	for _, bad := range hostile {
		err := InfrastructureName(bad)
		if err == nil {
			t.Errorf("InfrastructureName(%q) accepted", bad)
			continue
		}
		assertNamesNotQuotes(t, err, InfrastructureField, bad)
	}
}

func observed(t *testing.T, suites any, version any, proxy any) []byte {
	t.Helper()
	serving := map[string]any{}
	if suites != nil {
		serving["cipherSuites"] = suites
	}
	if version != nil {
		serving["minTLSVersion"] = version
	}
	target := map[string]any{"servingInfo": serving}
	if proxy != nil {
		target["proxy"] = proxy
	}
	config := map[string]any{"targetcsiconfig": target}
	raw, err := json.Marshal(config)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestObservedTLS(t *testing.T) {
	good := []string{"TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}
	tls, err := ObservedTLS(observed(t, good, "VersionTLS13", nil))
	if err != nil || strings.Join(tls.CipherSuites, ",") != strings.Join(good, ",") || tls.MinTLSVersion != "VersionTLS13" {
		t.Fatalf("ObservedTLS(good) = %+v, %v", tls, err)
	}
	if tls, err := ObservedTLS(observed(t, good, "", nil)); err != nil || tls.MinTLSVersion != "VersionTLS12" {
		t.Errorf("empty minTLSVersion: %+v, %v; want VersionTLS12 as library-go", tls, err)
	}
	tests := []struct {
		name   string
		raw    []byte
		naming string
	}{
		{"no cipher suite", observed(t, []string{}, "VersionTLS12", nil), "spec.tlsSecurityProfile"},
		{"cipher suites absent", observed(t, nil, "VersionTLS12", nil), "spec.tlsSecurityProfile"},
		{"not a list", observed(t, "TLS_AES_128_GCM_SHA256", "VersionTLS12", nil), "servingInfo.cipherSuites"},
		{"version absent", observed(t, good, nil, nil), "servingInfo.minTLSVersion"},
		{"version not a string", observed(t, good, 12, nil), "servingInfo.minTLSVersion"},
		{"not JSON", []byte(`{"servingInfo":`), ObservedConfigField},
	}
	for _, bad := range hostile {
		tests = append(tests,
			struct {
				name   string
				raw    []byte
				naming string
			}{"cipher " + bad, observed(t, []string{good[0], bad}, "VersionTLS12", nil), "servingInfo.cipherSuites[1]"},
			struct {
				name   string
				raw    []byte
				naming string
			}{"version " + bad, observed(t, good, bad, nil), "servingInfo.minTLSVersion"})
	}
	for _, tc := range tests {
		_, err := ObservedTLS(tc.raw)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.naming) {
			t.Errorf("%s: %v, want it to name %s", tc.name, err, tc.naming)
		}
	}
	for _, bad := range hostile {
		_, err := ObservedTLS(observed(t, []string{bad}, "VersionTLS12", nil))
		assertNamesNotQuotes(t, err, ObservedConfigField, bad)
	}
}

func TestObservedProxy(t *testing.T) {
	for _, ok := range []any{
		nil, map[string]any{},
		map[string]any{"HTTP_PROXY": "http://proxy.example:3128", "HTTPS_PROXY": "https://user:pw@proxy.example:3129", "NO_PROXY": ".cluster.local,10.0.0.0/16,localhost"},
	} {
		if err := ObservedProxy(observed(t, nil, nil, ok)); err != nil {
			t.Errorf("ObservedProxy(%v): %v", ok, err)
		}
	}
	if err := ObservedProxy(nil); err != nil {
		t.Errorf("empty observedConfig: %v", err)
	}
	bad := []map[string]any{
		{"LD_PRELOAD": "/tmp/x.so"}, {"KUBECONFIG": "/etc/hosted-kubernetes/kubeconfig"}, {"http_proxy": "http://p:1"},
		{"HTTP_PROXY": "ftp://p:1"}, {"HTTP_PROXY": "proxy:3128"}, {"HTTP_PROXY": 5}, {"HTTPS_PROXY": "http://p:1/\n- evil"},
		{"NO_PROXY": "a, b"}, {"NO_PROXY": "ünï"}, {"NO_PROXY": "a\"b\nc"},
	}
	for _, proxy := range bad {
		err := ObservedProxy(observed(t, nil, nil, proxy))
		if err == nil {
			t.Errorf("ObservedProxy(%v) accepted", proxy)
			continue
		}
		if !strings.Contains(err.Error(), "targetcsiconfig.proxy") {
			t.Errorf("ObservedProxy(%v): %v, want it to name targetcsiconfig.proxy", proxy, err)
		}
		for _, v := range proxy {
			if s, ok := v.(string); ok && strings.Contains(err.Error(), s) {
				t.Errorf("ObservedProxy(%v): %v quotes the value", proxy, err)
			}
		}
	}
	if err := ObservedProxy(observed(t, nil, nil, "http://p:1")); err == nil {
		t.Errorf("a proxy that is not a map was accepted")
	}
}

func assertNamesNotQuotes(t *testing.T, err error, field, value string) {
	t.Helper()
	if err == nil {
		t.Errorf("%q accepted", value)
		return
	}
	if !strings.Contains(err.Error(), field) {
		t.Errorf("%v does not name %s", err, field)
	}
	if len(value) > 2 && strings.Contains(err.Error(), value) {
		t.Errorf("%v quotes the value", err)
	}
}

// Every hostile value is refused as a proxy URL and in NO_PROXY.
func TestObservedProxyRefusesHostile(t *testing.T) {
	for _, bad := range hostile[:7] {
		for _, proxy := range []map[string]any{{"HTTPS_PROXY": "http://proxy.example:3128/" + bad}, {"NO_PROXY": "a.example," + bad}} {
			if err := ObservedProxy(observed(t, nil, nil, proxy)); err == nil {
				t.Errorf("ObservedProxy(%q) accepted", proxy)
			}
		}
	}
}
