// Package clusterinput validates the values the operator reads from the cluster it serves (the guest,
// when hosted) and writes into the controller Deployment and the node DaemonSets: the infrastructure
// name, the observed TLS profile and the observed proxy. Hosted, the controller Deployment lives in the
// management cluster, beside the hosted control plane's Secrets, and the guest's admin writes these
// values (Infrastructure status, ClusterCSIDriver spec.observedConfig, APIServer's Custom TLS profile):
// each is held to what it can legitimately be before it reaches a workload, and only ever as the value
// of one field, never as text of a manifest. Errors name the field and never quote the value.
package clusterinput

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/openshift/library-go/pkg/operator/csi/csiconfigobservercontroller"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"
)

// Where each value is read: the object and field a refusal names.
const (
	InfrastructureField = "Infrastructure cluster status.infrastructureName"
	ObservedConfigField = "ClusterCSIDriver manila.csi.openstack.org spec.observedConfig"
)

// defaultMinTLSVersion stands in for an observed empty minimum, as library-go's WithServingInfo does: a
// Custom TLS profile may leave it out.
const defaultMinTLSVersion = "VersionTLS12"

// proxyVariables are the environment variables library-go's config observer writes from Proxy cluster;
// library-go's proxy hooks turn every key under targetcsiconfig.proxy into a variable of that name.
var proxyVariables = []string{"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"}

// InfrastructureName checks an infrastructure name (the driver's --cluster-id, which tags every share):
// empty, or a DNS-1123 label, as the installer and HyperShift make them.
func InfrastructureName(name string) error {
	if name == "" {
		return nil
	}
	if len(name) > validation.DNS1123LabelMaxLength {
		return fmt.Errorf("%s: longer than %d characters", InfrastructureField, validation.DNS1123LabelMaxLength)
	}
	if len(validation.IsDNS1123Label(name)) > 0 {
		return fmt.Errorf("%s: not a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit)", InfrastructureField)
	}
	return nil
}

// TLS is the observed TLS profile, checked: cipher suites kube-rbac-proxy knows and a TLS version of
// its enum.
type TLS struct {
	CipherSuites  []string
	MinTLSVersion string
}

// ErrNoCipherSuite is the observed profile without a cipher suite, as from an APIServer Custom profile
// whose ciphers all are unknown to library-go's observer: the workloads wait until the profile gives one.
var ErrNoCipherSuite = fmt.Errorf("the TLS profile of APIServer cluster (spec.tlsSecurityProfile) gives no cipher suite this operator's kube-rbac-proxy knows (%s servingInfo.cipherSuites is empty)", ObservedConfigField)

// ObservedTLS reads and checks the TLS profile library-go's config observer wrote into observedConfig.
func ObservedTLS(observedConfig []byte) (TLS, error) {
	config, err := decode(observedConfig)
	if err != nil {
		return TLS{}, err
	}
	path := csiconfigobservercontroller.CipherSuitesPath()
	suites, found, err := unstructured.NestedStringSlice(config, path...)
	if err != nil {
		return TLS{}, fmt.Errorf("%s %s: not a list of strings", ObservedConfigField, strings.Join(path, "."))
	}
	if !found || len(suites) == 0 {
		return TLS{}, ErrNoCipherSuite
	}
	known := cliflag.TLSCipherPossibleValues()
	for i, s := range suites {
		if !slices.Contains(known, s) {
			return TLS{}, fmt.Errorf("%s %s[%d]: not a cipher suite kube-rbac-proxy knows (IANA names, as of Go's crypto/tls)", ObservedConfigField, strings.Join(path, "."), i)
		}
	}
	path = csiconfigobservercontroller.MinTLSVersionPath()
	version, found, err := unstructured.NestedString(config, path...)
	if err != nil || !found {
		return TLS{}, fmt.Errorf("%s %s: missing or not a string", ObservedConfigField, strings.Join(path, "."))
	}
	if version == "" {
		version = defaultMinTLSVersion
	}
	if _, err := cliflag.TLSVersion(version); err != nil {
		return TLS{}, fmt.Errorf("%s %s: not one of %s", ObservedConfigField, strings.Join(path, "."), strings.Join(cliflag.TLSPossibleVersions(), ", "))
	}
	return TLS{CipherSuites: suites, MinTLSVersion: version}, nil
}

// ObservedProxy checks the proxy library-go's config observer wrote into observedConfig, which
// library-go's proxy hooks copy into the workloads' environment: only the three proxy variables, each
// a URL (HTTP_PROXY, HTTPS_PROXY) or a list of hosts, domains and CIDRs (NO_PROXY), of the characters
// those may hold.
func ObservedProxy(observedConfig []byte) error {
	config, err := decode(observedConfig)
	if err != nil {
		return err
	}
	path := csiconfigobservercontroller.ProxyConfigPath()
	field := ObservedConfigField + " " + strings.Join(path, ".")
	proxy, found, err := unstructured.NestedMap(config, path...)
	if err != nil {
		return fmt.Errorf("%s: not a map", field)
	}
	if !found {
		return nil
	}
	for key, v := range proxy {
		if !slices.Contains(proxyVariables, key) {
			return fmt.Errorf("%s: a key other than %s", field, strings.Join(proxyVariables, ", "))
		}
		value, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s.%s: not a string", field, key)
		}
		if err := proxyValue(key, value); err != nil {
			return fmt.Errorf("%s.%s: %w", field, key, err)
		}
	}
	return nil
}

func proxyValue(key, value string) error {
	allowed := urlCharacters
	if key == "NO_PROXY" {
		allowed = noProxyCharacters
	}
	for _, r := range value {
		if r > unicode.MaxASCII || !strings.ContainsRune(allowed, r) && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return fmt.Errorf("holds a character a %s cannot hold", map[bool]string{true: "list of hosts, domains and CIDRs", false: "URL"}[key == "NO_PROXY"])
		}
	}
	if key == "NO_PROXY" || value == "" {
		return nil
	}
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("not an http or https URL")
	}
	return nil
}

// The characters besides ASCII letters and digits: a URL's unreserved, reserved and '%' (RFC 3986),
// and what NO_PROXY lists (hosts, .domains, *, IPv4 and [IPv6] CIDRs, ports).
const (
	urlCharacters     = "-._~:/?#[]@!$&'()*+,;=%"
	noProxyCharacters = "-._*,:/[]"
)

// decode reads observedConfig; empty is an empty config.
func decode(observedConfig []byte) (map[string]any, error) {
	config := map[string]any{}
	if len(observedConfig) == 0 {
		return config, nil
	}
	if err := json.Unmarshal(observedConfig, &config); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object", ObservedConfigField)
	}
	return config, nil
}
