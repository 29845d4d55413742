// Package exportlocation turns the operator config's exportLocations.network into the runtime config
// of manila-csi-plugin's node service, which picks the export location the node mounts.
//
// The driver (k8s.io/cloud-provider-openstack pkg/csi/manila, v1.36) reads the file named by
// --runtime-config-file on every NodeStage (it does not cache it): {"nfs":{"matchExportLocationAddress":
// CIDR}} makes it mount only an export location whose address is inside that one CIDR, a preferred
// one first, and fail NodeStage with "matchExportLocationAddress filter ...: no match" when a share
// has none. A missing file, or one without that key, keeps its default: the first export location that
// is not admin-only, a preferred one first.
package exportlocation

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

const (
	// ConfigMapName is the runtime config in the operand namespace; Key holds the JSON.
	ConfigMapName = "manila-csi-driver-runtime-config"
	Key           = "runtimeconfig.json"
	// MountDir is where the node plugin's csi-driver container mounts ConfigMapName.
	MountDir = "/etc/manila-csi-driver/runtime-config"
	// Keyword stands for the cluster's machine network, as in nfs-shareClient.
	Keyword = machinenetwork.Keyword
)

// Invalid says what is wrong with a value of exportLocations.network, "" when nothing is: it is one
// CIDR, one IP address (the driver's exact match) or Keyword. A list is refused because the driver
// matches a single CIDR; any mapping of several onto it would mount on a network the admin did not
// name, or refuse shares the admin expected to mount.
func Invalid(v string) string {
	v = strings.TrimSpace(v)
	switch {
	case v == Keyword:
		return ""
	case v == "":
		return fmt.Sprintf("empty; give one CIDR, one IP address or %s, or remove the field", Keyword)
	case strings.Contains(v, ","):
		return fmt.Sprintf("%q is a list; the driver matches one network: give one CIDR, one IP address or %s", v, Keyword)
	}
	if _, err := parse(v); err != nil {
		return fmt.Sprintf("%q is not a CIDR, an IP address or %s", v, Keyword)
	}
	return ""
}

// parse returns a CIDR or an IP address as a masked prefix (an address as /32 or /128).
func parse(v string) (netip.Prefix, error) {
	if addr, err := netip.ParseAddr(v); err == nil {
		addr = addr.Unmap().WithZone("")
		return netip.PrefixFrom(addr, addr.BitLen()), nil
	}
	p, err := netip.ParsePrefix(v)
	if err != nil {
		return netip.Prefix{}, err
	}
	return p.Masked(), nil
}

// Reasons an exportLocations.network of Keyword cannot be resolved.
const (
	ReasonMachineNetworkUnknown   = "MachineNetworkUnknown"
	ReasonMachineNetworkAmbiguous = "MachineNetworkAmbiguous"
)

// UnresolvedError says why exportLocations.network: machineNetwork has no single CIDR now.
type UnresolvedError struct {
	Reason  string
	Message string
}

func (e *UnresolvedError) Error() string { return e.Message }

// Selection is what the node plugin is told.
type Selection struct {
	// Setting is exportLocations.network as configured, "" when unset.
	Setting string `json:"setting,omitempty"`
	// CIDR is the network the driver matches export locations against, "" for the driver's default.
	CIDR string `json:"cidr,omitempty"`
	// From says where CIDR came from when Setting is Keyword.
	From string `json:"from,omitempty"`
}

// Resolve maps the setting onto one CIDR. machineNetwork needs the install config's machine network:
// the nodes' own addresses (machinenetwork's fallback) are no network export locations live on, so
// without the install config, or with several machine networks (a dual-stack cluster has one per
// family), it is an *UnresolvedError naming the field and the CIDRs to choose from. mn may be nil
// when the setting is not Keyword.
func Resolve(setting string, mn *machinenetwork.Resolution) (Selection, error) {
	setting = strings.TrimSpace(setting)
	if setting == "" {
		return Selection{}, nil
	}
	if setting != Keyword {
		p, err := parse(setting)
		if err != nil {
			return Selection{}, fmt.Errorf("exportLocations.network: %s", Invalid(setting))
		}
		return Selection{Setting: setting, CIDR: p.String()}, nil
	}
	const field = "exportLocations.network: " + Keyword
	switch {
	case mn == nil || mn.From != machinenetwork.FromInstallConfig || len(mn.CIDRs) == 0:
		why := fmt.Sprintf("ConfigMap %s/%s is absent", machinenetwork.InstallConfigNamespace, machinenetwork.InstallConfigName)
		if mn != nil && mn.Fallback != "" {
			why = strings.TrimSuffix(mn.Fallback, "; using "+machinenetwork.FromNodes+" instead")
		}
		return Selection{}, &UnresolvedError{Reason: ReasonMachineNetworkUnknown,
			Message: fmt.Sprintf("%s: the machine network is unknown (%s); give the CIDR the nodes reach shares on instead", field, why)}
	case len(mn.CIDRs) > 1:
		return Selection{}, &UnresolvedError{Reason: ReasonMachineNetworkAmbiguous,
			Message: fmt.Sprintf("%s: the cluster has %d machine networks (%s) and the driver matches one; give the one the nodes reach shares on", field, len(mn.CIDRs), strings.Join(mn.CIDRs, ", "))}
	}
	return Selection{Setting: setting, CIDR: mn.CIDRs[0], From: mn.From}, nil
}

// runtimeConfig is the driver's file, in the shape of its runtimeconfig.RuntimeConfig.
type runtimeConfig struct {
	NFS *nfsConfig `json:"nfs,omitempty"`
}

type nfsConfig struct {
	MatchExportLocationAddress string `json:"matchExportLocationAddress,omitempty"`
}

// RuntimeConfig returns the driver's runtime config JSON for the selection: "{}" (the driver's
// default, as without the file) when no CIDR is selected.
func RuntimeConfig(s Selection) string {
	cfg := runtimeConfig{}
	if s.CIDR != "" {
		cfg.NFS = &nfsConfig{MatchExportLocationAddress: s.CIDR}
	}
	data, _ := json.Marshal(cfg) // plain strings: cannot fail
	return string(data)
}

// Effect says in one sentence what the node plugin does with the selection.
func Effect(s Selection) string {
	if s.CIDR == "" {
		return "the node plugin mounts each share's first export location that is not admin-only (a preferred one first), the driver's default"
	}
	return fmt.Sprintf("the node plugin mounts only an export location inside %s (a preferred one first); a share without one fails NodeStage with the driver's \"matchExportLocationAddress filter '%s': no match\" error in the pod's events", s.CIDR, s.CIDR)
}

// Describe says what the setting is and does, for events, conditions and the commands' output.
func Describe(s Selection) string {
	switch {
	case s.CIDR == "":
		return "exportLocations.network is not set: " + Effect(s)
	case s.From != "":
		return fmt.Sprintf("exportLocations.network %s is %s (from %s): %s", s.Setting, s.CIDR, s.From, Effect(s))
	}
	return fmt.Sprintf("exportLocations.network is %s: %s", s.CIDR, Effect(s))
}
