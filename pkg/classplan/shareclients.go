package classplan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// UsesMachineNetwork reports whether some nfs-shareClient setting names machinenetwork.Keyword.
func UsesMachineNetwork(settings operatorconfig.StorageClasses) bool {
	if namesMachineNetwork(settings.Defaults.NFSShareClient) {
		return true
	}
	for _, s := range settings.ShareTypes {
		if namesMachineNetwork(s.NFSShareClient) {
			return true
		}
	}
	return false
}

// WithMachineNetwork returns the settings with machinenetwork.Keyword replaced by cidrs in every
// nfs-shareClient list (duplicates dropped, order kept). Without cidrs the keyword stays, and
// HoldUnresolved keeps its classes from being written.
func WithMachineNetwork(settings operatorconfig.StorageClasses, cidrs []string) operatorconfig.StorageClasses {
	if len(cidrs) == 0 {
		return settings
	}
	out := settings
	out.Defaults.NFSShareClient = substitute(settings.Defaults.NFSShareClient, cidrs)
	if settings.ShareTypes != nil {
		out.ShareTypes = make(map[string]operatorconfig.ClassSettings, len(settings.ShareTypes))
		for name, s := range settings.ShareTypes {
			s.NFSShareClient = substitute(s.NFSShareClient, cidrs)
			out.ShareTypes[name] = s
		}
	}
	return out
}

func substitute(list *string, cidrs []string) *string {
	if !namesMachineNetwork(list) {
		return list
	}
	var parts []string
	for _, p := range strings.Split(*list, ",") {
		if p = strings.TrimSpace(p); p == machinenetwork.Keyword {
			parts = append(parts, cidrs...)
		} else {
			parts = append(parts, p)
		}
	}
	var kept []string
	for _, p := range parts {
		if !slices.Contains(kept, p) {
			kept = append(kept, p)
		}
	}
	joined := strings.Join(kept, ",")
	return &joined
}

// NamesShareClients reports whether some nfs-shareClient setting lists hosts.
func NamesShareClients(settings operatorconfig.StorageClasses) bool {
	if settings.Defaults.NFSShareClient != nil && *settings.Defaults.NFSShareClient != "" {
		return true
	}
	for _, s := range settings.ShareTypes {
		if s.NFSShareClient != nil && *s.NFSShareClient != "" {
			return true
		}
	}
	return false
}

func namesMachineNetwork(list *string) bool {
	return list != nil && slices.Contains(splitClients(*list), machinenetwork.Keyword)
}

func splitClients(list string) []string {
	parts := strings.Split(list, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// HoldUnresolved splits off the classes whose nfs-shareClient still names machinenetwork.Keyword
// (nothing resolved it yet): writing them would open or close their shares to the wrong hosts, so
// they are neither created nor updated, and an existing one keeps its last list.
func HoldUnresolved(wanted []Wanted) (ready []Wanted, held []string) {
	for _, w := range wanted {
		if v, ok := w.Class.Parameters[parameterShareClient]; ok && namesMachineNetwork(&v) {
			held = append(held, w.Class.Name)
			continue
		}
		ready = append(ready, w)
	}
	return ready, held
}

// OpenToAnyHost returns, sorted, the NFS classes whose shares any host may mount: nfs-shareClient
// unset (the driver then grants 0.0.0.0/0) or listing 0.0.0.0/0 or ::/0. A CephFS share is mounted
// with a cephx key, whatever the host: its classes have no host list to warn about.
func OpenToAnyHost(wanted []Wanted) []string {
	var out []string
	for _, w := range wanted {
		if ProtocolOf(w.Class) == ProtocolNFS && OpensToAnyHost(w.Class.Parameters) {
			out = append(out, w.Class.Name)
		}
	}
	sort.Strings(out)
	return out
}

// OpensToAnyHost reports whether a class with these parameters lets any host mount its shares:
// nfs-shareClient unset (the driver then grants 0.0.0.0/0) or naming a whole address space.
func OpensToAnyHost(parameters map[string]string) bool {
	v, ok := parameters[parameterShareClient]
	return !ok || slices.ContainsFunc(splitClients(v), func(c string) bool { return c == "0.0.0.0/0" || c == "::/0" })
}

// OpenToAnyHostMessage tells an admin which classes are open and what to set instead.
func OpenToAnyHostMessage(classes []string) string {
	return fmt.Sprintf("StorageClasses %s let any host mount their shares (nfs-shareClient unset, the driver's default 0.0.0.0/0, or 0.0.0.0/0); set storageClasses.defaults.nfs-shareClient: %s in ConfigMap %s to limit them to the cluster's machine network",
		strings.Join(classes, ", "), machinenetwork.Keyword, operatorconfig.ConfigMapName)
}
