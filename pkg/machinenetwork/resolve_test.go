package machinenetwork

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestResolve(t *testing.T) {
	str := func(s string) *string { return &s }
	nodes := []string{"10.0.0.12", "10.0.0.11", "fd00::11", "10.0.0.11"}
	cases := []struct {
		name          string
		installConfig *string
		nodeIPs       []string
		want          []string
		from          string
		fallback      string // a part of the fallback message; "" for none
	}{
		{"machineNetwork", str("networking:\n  machineNetwork:\n  - cidr: 10.0.0.0/16\n"), nodes,
			[]string{"10.0.0.0/16"}, FromInstallConfig, ""},
		{"dual-stack, IPv6 listed first, host bits and duplicates",
			str("networking:\n  machineNetwork:\n  - cidr: fd00:0:0:1::/64\n  - cidr: 10.0.5.7/16\n  - cidr: 10.0.0.0/16\n  - cidr: 192.168.0.0/24\n"), nil,
			[]string{"10.0.0.0/16", "192.168.0.0/24", "fd00:0:0:1::/64"}, FromInstallConfig, ""},
		{"machineCIDR of an older install", str("apiVersion: v1\nnetworking:\n  machineCIDR: 10.1.0.0/16\n  networkType: OpenShiftSDN\n"), nodes,
			[]string{"10.1.0.0/16"}, FromInstallConfig, ""},
		{"machineNetwork wins over machineCIDR", str("networking:\n  machineCIDR: 10.1.0.0/16\n  machineNetwork:\n  - cidr: 10.2.0.0/16\n"), nil,
			[]string{"10.2.0.0/16"}, FromInstallConfig, ""},
		{"an IPv4-mapped CIDR", str("networking:\n  machineNetwork:\n  - cidr: ::ffff:10.3.0.0/112\n"), nil,
			[]string{"10.3.0.0/16"}, FromInstallConfig, ""},
		{"no ConfigMap: the nodes", nil, nodes,
			[]string{"10.0.0.11/32", "10.0.0.12/32", "fd00::11/128"}, FromNodes, ""},
		{"no ConfigMap, no nodes yet", nil, nil, nil, FromNodes, ""},
		{"node addresses that are not IPs are left out", nil, []string{"node-0.example.com", "::ffff:10.0.0.9", " 10.0.0.8 "},
			[]string{"10.0.0.8/32", "10.0.0.9/32"}, FromNodes, ""},
		{"malformed YAML falls back to the nodes", str("networking: [\n"), nodes,
			[]string{"10.0.0.11/32", "10.0.0.12/32", "fd00::11/128"}, FromNodes, "not a valid install config"},
		{"networking of the wrong type", str("networking: flat\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, "not a valid install config"},
		{"no networking section", str("apiVersion: v1\nmetadata:\n  name: c\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, "no networking section"},
		{"no machine network in it", str("networking:\n  networkType: OVNKubernetes\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, "neither networking.machineNetwork nor networking.machineCIDR"},
		{"a machineNetwork entry that is not a CIDR", str("networking:\n  machineNetwork:\n  - cidr: 10.0.0.0/16\n  - cidr: lab\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, `networking.machineNetwork[1].cidr "lab" is not a CIDR`},
		{"a machineCIDR that is not a CIDR", str("networking:\n  machineCIDR: 10.0.0.0\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, `networking.machineCIDR "10.0.0.0" is not a CIDR`},
		{"an alias bomb", str("a: &a [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nb: [" + strings.Repeat("*a,", 300) + "*a]\n"), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, "install-config:"},
		{"the ConfigMap without the key", str(""), []string{"10.0.0.1"},
			[]string{"10.0.0.1/32"}, FromNodes, "missing or empty"},
		{"malformed and no nodes yet", str("networking: [\n"), nil, nil, FromNodes, "not a valid install config"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(tc.installConfig, tc.nodeIPs)
			if !reflect.DeepEqual(got.CIDRs, tc.want) {
				t.Errorf("CIDRs %q, want %q", got.CIDRs, tc.want)
			}
			if got.From != tc.from {
				t.Errorf("From %q, want %q", got.From, tc.from)
			}
			switch {
			case tc.fallback == "" && got.Fallback != "":
				t.Errorf("unexpected fallback %q", got.Fallback)
			case tc.fallback != "" && (!strings.Contains(got.Fallback, tc.fallback) || !strings.Contains(got.Fallback, FromInstallConfig)):
				t.Errorf("fallback %q, want it to name the ConfigMap and %q", got.Fallback, tc.fallback)
			}
		})
	}
}

func TestInternalIPs(t *testing.T) {
	node := func(addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{Status: corev1.NodeStatus{Addresses: addrs}}
	}
	got := InternalIPs([]*corev1.Node{
		node(corev1.NodeAddress{Type: corev1.NodeHostName, Address: "master-0"},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.5"},
			corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: "203.0.113.5"},
			corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "fd00::5"}),
		node(),
		node(corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "10.0.0.6"}),
	})
	if want := []string{"10.0.0.5", "fd00::5", "10.0.0.6"}; !reflect.DeepEqual(got, want) {
		t.Errorf("InternalIPs %q, want %q", got, want)
	}
}
