// Package checkcloud is the `check-cloud` command: it tells an admin, without a cluster, whether the
// operator could use Manila with a clouds.yaml and what StorageClasses it would make. The decisions are
// the operator's own (pkg/openstack, pkg/classplan, pkg/operatorconfig); this package only gathers
// their answers into a report.
package checkcloud

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Report is what check-cloud prints, as text, JSON or YAML. It holds no credential.
type Report struct {
	Cloud   string `json:"cloud"`
	AuthURL string `json:"authURL"`
	// Usable is true when Manila answered and at least one share type gets a StorageClass: the exit
	// code is 0 only then.
	Usable bool `json:"usable"`
	// Problem says why Manila is not usable; Hint what to try.
	Problem string              `json:"problem,omitempty"`
	Hint    string              `json:"hint,omitempty"`
	Manila  *openstack.Endpoint `json:"manila,omitempty"`
	Roles   []string            `json:"roles,omitempty"`
	// Admin is nil when the token does not say which roles it carries.
	Admin *bool `json:"admin,omitempty"`
	// Listing says which share types were asked for: "public and private" or "public only (why)".
	Listing    string            `json:"listing,omitempty"`
	ShareTypes []ShareTypeReport `json:"shareTypes,omitempty"`
	// ExportLocations is which export location the node plugin would mount (exportLocations.network).
	ExportLocations ExportLocationsReport `json:"exportLocations"`
	Warnings        []string              `json:"warnings,omitempty"`
}

// ExportLocationsReport is exportLocations.network, what it resolves to and what the node plugin does.
type ExportLocationsReport struct {
	exportlocation.Selection
	// RuntimeConfig is the driver's runtime config the operator would write; empty with Problem.
	RuntimeConfig string `json:"runtimeConfig,omitempty"`
	Effect        string `json:"effect,omitempty"`
	// Problem is why machineNetwork cannot be resolved (on a cluster: RuntimeConfigControllerDegraded).
	Problem string `json:"problem,omitempty"`
}

// ShareTypeReport is one share type and the StorageClasses it would get, or why it gets none.
type ShareTypeReport struct {
	Name   string `json:"name"`
	ID     string `json:"id"`
	Public bool   `json:"public"`
	// StorageClass is the type's NFS class (provisioner manila.csi.openstack.org).
	StorageClass *ClassReport `json:"storageClass,omitempty"`
	// NoClass is why the share type gets no StorageClass; NeedsAction marks reasons an admin can fix.
	NoClass     string `json:"noStorageClass,omitempty"`
	NeedsAction bool   `json:"needsAction,omitempty"`
	// Protocols are the protocols the type gets a class for: NFS, CEPHFS, both, or none (NoClass
	// says why).
	Protocols []string `json:"protocols"`
	// CephFSStorageClass is the type's CephFS class (provisioner cephfs.manila.csi.openstack.org),
	// made while cephfs.enabled is true for a type whose storage_protocol names CEPHFS.
	CephFSStorageClass *ClassReport `json:"cephfsStorageClass,omitempty"`
	// NoCephFSClass is why a type whose storage_protocol names CEPHFS gets no CephFS class beside its
	// NFS class (cephfs.enabled is false).
	NoCephFSClass string `json:"noCephFSStorageClass,omitempty"`
}

// ClassReport is the StorageClass the operator would create for a share type.
type ClassReport struct {
	Name                 string            `json:"name"`
	NameNote             string            `json:"nameNote,omitempty"`
	Default              bool              `json:"default,omitempty"`
	Parameters           map[string]string `json:"parameters"`
	ReclaimPolicy        string            `json:"reclaimPolicy"`
	VolumeBindingMode    string            `json:"volumeBindingMode"`
	AllowVolumeExpansion bool              `json:"allowVolumeExpansion"`
	MountOptions         []string          `json:"mountOptions,omitempty"`
	// Snapshots is true when the share type gives its shares what the driver needs to snapshot them
	// and create claims from the snapshots: snapshot_support and create_share_from_snapshot_support.
	Snapshots bool `json:"snapshots"`
}

// Facts are what was learned from the input files and the cloud. A step that failed leaves the
// later ones empty.
type Facts struct {
	CloudName string
	Cloud     *clientconfig.Cloud
	// Config is the operator configuration given with --config, or empty.
	Config operatorconfig.Config
	// MachineNetwork is the machine network of --install-config, nil without it.
	MachineNetwork *machinenetwork.Resolution
	LoginErr       error
	Endpoint       *openstack.Endpoint
	ManilaErr      error
	Roles          []string
	RolesKnown     bool
	// PublicOnly is why only public share types were listed, "" when all were.
	PublicOnly string
	ShareTypes []manilatypes.ShareType
	ListErr    error
}

// Build turns the facts into a report with the operator's own decisions: class names and parameters
// from classplan.DesiredFor under the given configuration (cephfs.enabled included), with no existing classes (a cluster that
// already has some may keep other names for them).
func Build(f Facts) Report {
	r := Report{Cloud: f.CloudName, Warnings: configWarnings(f.Cloud, f.Config), ExportLocations: exportLocations(f)}
	if f.Cloud != nil && f.Cloud.AuthInfo != nil {
		r.AuthURL = redactedURL(f.Cloud.AuthInfo.AuthURL)
	}
	switch {
	case f.LoginErr != nil:
		r.Problem, r.Hint = "login to Keystone failed: "+openstack.RedactText(f.LoginErr.Error()), loginHint(f.LoginErr)
		return r
	case f.ManilaErr != nil:
		r.Problem = openstack.RedactText(f.ManilaErr.Error())
		r.Hint = "register Manila's sharev2 service in the Keystone catalog, or fix region_name/interface in clouds.yaml"
		return r
	}
	r.Manila = f.Endpoint
	if f.RolesKnown {
		r.Roles = f.Roles
		admin := slices.Contains(f.Roles, "admin")
		r.Admin = &admin
	}
	r.Listing = "public and private"
	if f.PublicOnly != "" {
		r.Listing = "public only (" + f.PublicOnly + ")"
	}
	if f.ListErr != nil {
		r.Problem = "listing share types failed: " + openstack.RedactText(f.ListErr.Error())
		return r
	}
	r.ShareTypes = shareTypeReports(f.ShareTypes, f.Config)
	classes := 0
	for _, st := range r.ShareTypes {
		if st.StorageClass != nil || st.CephFSStorageClass != nil {
			classes++
		}
	}
	r.Warnings = append(r.Warnings, classWarnings(r.ShareTypes, f.Config)...)
	switch {
	case len(f.ShareTypes) == 0:
		r.Problem, r.Hint = "Manila lists no share types", "create a share type (openstack share type create), or make one public or shared with this project"
	case classes == 0:
		r.Problem = "no share type gets a StorageClass"
	default:
		r.Usable = true
	}
	return r
}

// exportLocations resolves exportLocations.network as the operator's RuntimeConfigController does,
// with --install-config standing in for ConfigMap kube-system/cluster-config-v1.
func exportLocations(f Facts) ExportLocationsReport {
	sel, err := exportlocation.Resolve(f.Config.ExportLocations.Network, f.MachineNetwork)
	if err != nil {
		problem := err.Error()
		if f.MachineNetwork == nil {
			problem += " (here: give --install-config FILE, key install-config of that ConfigMap)"
		}
		return ExportLocationsReport{Selection: exportlocation.Selection{Setting: f.Config.ExportLocations.Network}, Problem: problem}
	}
	return ExportLocationsReport{Selection: sel, RuntimeConfig: exportlocation.RuntimeConfig(sel), Effect: exportlocation.Effect(sel)}
}

// shareTypeReports pairs each share type with its classes or the reason it has none, sorted by name.
func shareTypeReports(types []manilatypes.ShareType, cfg operatorconfig.Config) []ShareTypeReport {
	wanted, skipped := classplan.DesiredFor(types, cfg.StorageClasses, cfg.CephFS.Enabled, nil)
	byID := map[string]*ShareTypeReport{}
	out := make([]ShareTypeReport, 0, len(types))
	for _, st := range types {
		out = append(out, ShareTypeReport{Name: st.Name, ID: st.ID, Public: st.IsPublic, Protocols: []string{}})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	for _, s := range skipped {
		st := byID[s.ShareType.ID]
		switch {
		case st == nil:
		case s.Protocol == classplan.ProtocolCephFS:
			st.NoCephFSClass = s.Reason
			st.NeedsAction = st.NeedsAction || s.NeedsAction
		default:
			st.NoClass, st.NeedsAction = s.Reason, st.NeedsAction || s.NeedsAction
		}
	}
	for _, w := range wanted {
		st := byID[w.ShareType.ID]
		if st == nil {
			continue
		}
		c := w.Class
		protocol := classplan.ProtocolOf(c)
		report := &ClassReport{
			Name:                 c.Name,
			NameNote:             nameNote(protocol, w.ShareType.Name, c.Name, types),
			Default:              c.Annotations[classplan.DefaultClassAnnotation] == "true",
			Parameters:           c.Parameters,
			ReclaimPolicy:        string(*c.ReclaimPolicy),
			VolumeBindingMode:    string(*c.VolumeBindingMode),
			AllowVolumeExpansion: *c.AllowVolumeExpansion,
			MountOptions:         c.MountOptions,
			Snapshots:            snapshotCapable(w.ShareType.ExtraSpecs),
		}
		if protocol == classplan.ProtocolCephFS {
			st.CephFSStorageClass = report
		} else {
			st.StorageClass = report
		}
	}
	for _, st := range types {
		r := byID[st.ID]
		if r.StorageClass != nil {
			r.Protocols = append(r.Protocols, string(classplan.ProtocolNFS))
		}
		if r.CephFSStorageClass != nil {
			r.Protocols = append(r.Protocols, string(classplan.ProtocolCephFS))
		}
		if r.StorageClass != nil && r.CephFSStorageClass == nil && r.NoCephFSClass == "" && !cfg.CephFS.Enabled &&
			slices.Contains(classplan.ServedProtocols(st), classplan.ProtocolCephFS) {
			r.NoCephFSClass = classplan.CephFSOffReason(st)
		}
	}
	return out
}

// nameNote explains a hash suffix, which admins otherwise take for a bug: the plain name was taken
// by another share type or is not a valid StorageClass name.
func nameNote(protocol classplan.Protocol, shareType, class string, types []manilatypes.ShareType) string {
	prefix := classplan.NamePrefix
	if protocol == classplan.ProtocolCephFS {
		prefix = classplan.CephFSNamePrefix
	}
	plain := classplan.PlainNameWith(prefix, shareType)
	if class == plain {
		return ""
	}
	var rivals []string
	for _, other := range types {
		if other.Name != shareType && classplan.PlainNameWith(prefix, other.Name) == plain {
			rivals = append(rivals, fmt.Sprintf("%q", other.Name))
		}
	}
	if len(rivals) > 0 {
		return fmt.Sprintf("hash suffix: the plain name %s would collide with share type %s", plain, strings.Join(rivals, ", "))
	}
	return fmt.Sprintf("hash suffix: %s is not a valid StorageClass name, or collides once the name is made valid", plain)
}

func loginHint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "x509:") || strings.Contains(msg, "certificate"):
		return "Keystone's certificate is not trusted: pass its CA with --cacert (the operator reads it from ConfigMap openshift-config/cloud-provider-config, key ca-bundle.pem)"
	case strings.Contains(msg, "401"):
		return "check the user name, password (or application credential), project and domains in clouds.yaml"
	}
	return "check the auth section of clouds.yaml, and that auth_url is reachable from here"
}

func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return openstack.RedactText(raw)
	}
	return u.Redacted()
}

// snapshotCapable tells whether shares of a type with these extra specs can be snapshotted and
// restored: manila-csi-plugin refuses CreateSnapshot unless the share has both capabilities, and
// Manila gives a share neither unless its type says so ("True", or the scheduler's "<is> True").
func snapshotCapable(specs map[string]string) bool {
	yes := func(key string) bool {
		v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(specs[key]), "<is>"))
		return strings.EqualFold(v, "true")
	}
	return yes("snapshot_support") && yes("create_share_from_snapshot_support")
}
