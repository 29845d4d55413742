// Package machinenetwork resolves the config value nfs-shareClient: machineNetwork to the cluster's
// machine network: the CIDRs the installer recorded, else the nodes' own addresses.
package machinenetwork

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/yamlsize"
)

const (
	// Keyword is the nfs-shareClient value (or list element) that stands for the machine network.
	Keyword = "machineNetwork"
	// InstallConfigNamespace, InstallConfigName and InstallConfigKey locate the install config the
	// installer leaves in the cluster.
	InstallConfigNamespace = "kube-system"
	InstallConfigName      = "cluster-config-v1"
	InstallConfigKey       = "install-config"
)

// Resolution is the machine network and where it came from.
type Resolution struct {
	// CIDRs are sorted (IPv4 first) and deduplicated, in canonical form; empty when nothing is known.
	CIDRs []string
	// From says where CIDRs came from, for messages.
	From string
	// Fallback says why the install config was not used although it exists; "" otherwise.
	Fallback string
}

// FromInstallConfig and FromNodes are the values of Resolution.From.
const (
	FromInstallConfig = "ConfigMap " + InstallConfigNamespace + "/" + InstallConfigName
	FromNodes         = "the nodes' InternalIP addresses"
)

// Resolve returns the machine network from the install config (nil when the ConfigMap is absent): networking.machineNetwork[].cidr, or networking.machineCIDR of installs that predate it.
// Without a usable install config it is the nodes' InternalIP addresses, each as a /32 or /128.
func Resolve(installConfig *string, nodeIPs []string) Resolution {
	if installConfig != nil {
		cidrs, err := parseInstallConfig(*installConfig)
		if err == nil {
			return Resolution{CIDRs: cidrs, From: FromInstallConfig}
		}
		r := fromNodes(nodeIPs)
		r.Fallback = fmt.Sprintf("%s key %s: %v; using %s instead", FromInstallConfig, InstallConfigKey, err, FromNodes)
		return r
	}
	return fromNodes(nodeIPs)
}

type installConfig struct {
	Networking *struct {
		MachineNetwork []struct {
			CIDR string `json:"cidr"`
		} `json:"machineNetwork"`
		MachineCIDR string `json:"machineCIDR"`
	} `json:"networking"`
}

func parseInstallConfig(data string) ([]string, error) {
	if strings.TrimSpace(data) == "" {
		return nil, fmt.Errorf("missing or empty")
	}
	if err := yamlsize.Check([]byte(data), yamlsize.MaxExpanded); err != nil {
		return nil, err
	}
	var ic installConfig
	if err := yaml.Unmarshal([]byte(data), &ic); err != nil {
		return nil, fmt.Errorf("not a valid install config: %v", err)
	}
	if ic.Networking == nil {
		return nil, fmt.Errorf("no networking section")
	}
	var prefixes []netip.Prefix
	for i, n := range ic.Networking.MachineNetwork {
		p, err := netip.ParsePrefix(strings.TrimSpace(n.CIDR))
		if err != nil {
			return nil, fmt.Errorf("networking.machineNetwork[%d].cidr %q is not a CIDR", i, n.CIDR)
		}
		prefixes = append(prefixes, p)
	}
	if len(prefixes) == 0 && ic.Networking.MachineCIDR != "" {
		p, err := netip.ParsePrefix(strings.TrimSpace(ic.Networking.MachineCIDR))
		if err != nil {
			return nil, fmt.Errorf("networking.machineCIDR %q is not a CIDR", ic.Networking.MachineCIDR)
		}
		prefixes = append(prefixes, p)
	}
	if len(prefixes) == 0 {
		return nil, fmt.Errorf("neither networking.machineNetwork nor networking.machineCIDR is set")
	}
	return canonical(prefixes), nil
}

func fromNodes(ips []string) Resolution {
	var prefixes []netip.Prefix
	for _, s := range ips {
		addr, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			continue // the kubelet reports what it found; an address Manila cannot take is left out
		}
		prefixes = append(prefixes, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return Resolution{CIDRs: canonical(prefixes), From: FromNodes}
}

// canonical masks, sorts (IPv4 before IPv6, then by address and length) and deduplicates.
func canonical(prefixes []netip.Prefix) []string {
	for i, p := range prefixes {
		addr, bits := p.Addr().WithZone(""), p.Bits()
		if addr.Is4In6() && bits >= 96 {
			addr, bits = addr.Unmap(), bits-96
		}
		prefixes[i] = netip.PrefixFrom(addr, bits).Masked()
	}
	slices.SortFunc(prefixes, func(a, b netip.Prefix) int {
		if c := a.Addr().Compare(b.Addr()); c != 0 {
			return c
		}
		return a.Bits() - b.Bits()
	})
	prefixes = slices.Compact(prefixes)
	if len(prefixes) == 0 {
		return nil
	}
	out := make([]string, len(prefixes))
	for i, p := range prefixes {
		out[i] = p.String()
	}
	return out
}

// InternalIPs returns the InternalIP addresses of the nodes.
func InternalIPs(nodes []*corev1.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, NodeInternalIPs(n)...)
	}
	return out
}

// NodeInternalIPs returns one node's InternalIP addresses, in the order the kubelet reports them.
func NodeInternalIPs(n *corev1.Node) []string {
	var out []string
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			out = append(out, a.Address)
		}
	}
	return out
}
