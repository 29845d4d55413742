package classplan

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

// Exclusion is an NFS class whose nfs-shareClient admits none of the InternalIP addresses of Nodes.
type Exclusion struct {
	Class, ShareType, Rule string
	Nodes                  []string
}

// shownExcluded is how many nodes an exclusion's message names before it counts the rest.
const shownExcluded = 5

// Excluding returns, sorted by class, the NFS classes in wanted whose nfs-shareClient admits none of
// some node's InternalIP addresses (nodeIPs, by node name), with those nodes sorted: a pod there that
// uses one of the class's volumes is refused by the NFS server, unless the node reaches it from
// another address. A class open to any host excludes nobody; a list with an entry that is not an
// address or a CIDR (a host name) is not judged, nor is a node without an InternalIP.
func Excluding(wanted []Wanted, nodeIPs map[string][]string) []Exclusion {
	var out []Exclusion
	for _, w := range wanted {
		if ProtocolOf(w.Class) != ProtocolNFS || OpensToAnyHost(w.Class.Parameters) {
			continue
		}
		rule := w.Class.Parameters[parameterShareClient]
		prefixes, ok := parseShareClients(rule)
		if !ok {
			continue
		}
		var nodes []string
		for node, ips := range nodeIPs {
			if len(ips) > 0 && !slices.ContainsFunc(ips, func(ip string) bool { return admits(prefixes, ip) }) {
				nodes = append(nodes, node)
			}
		}
		if len(nodes) > 0 {
			slices.Sort(nodes)
			out = append(out, Exclusion{Class: w.Class.Name, ShareType: w.ShareType.Name, Rule: rule, Nodes: nodes})
		}
	}
	slices.SortFunc(out, func(a, b Exclusion) int { return strings.Compare(a.Class, b.Class) })
	return out
}

// parseShareClients parses a comma-separated list of addresses and CIDRs; false at the first entry
// that is neither.
func parseShareClients(rule string) ([]netip.Prefix, bool) {
	var out []netip.Prefix
	for _, e := range splitClients(rule) {
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil {
			return nil, false
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, len(out) > 0
}

// admits is whether ip (unparsable: no) is in one of prefixes.
func admits(prefixes []netip.Prefix, ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(prefixes, func(p netip.Prefix) bool { return p.Contains(a.Unmap()) })
}

// ExcludingMessage says which classes shut out which nodes, and how to let them in.
func ExcludingMessage(ex []Exclusion) string {
	var parts []string
	for _, e := range ex {
		shown := strings.Join(e.Nodes[:min(len(e.Nodes), shownExcluded)], ", ")
		if more := len(e.Nodes) - shownExcluded; more > 0 {
			shown += fmt.Sprintf(" and %d more", more)
		}
		parts = append(parts, fmt.Sprintf("StorageClass %s (share type %q) has nfs-shareClient %s, which admits no InternalIP address of node(s) %s",
			e.Class, e.ShareType, e.Rule, shown))
	}
	return strings.Join(parts, "; ") + ". A pod on such a node fails to mount the class's volumes (the NFS server refuses access), " +
		"unless the node reaches the server from another address (a storage network): widen the type's nfs-shareClient " +
		"(storageClasses.shareTypes.<type>.nfs-shareClient, or " + machinenetwork.Keyword + ")"
}
