// Package operatorconfig reads the operator's own configuration: ConfigMap
// openshift-cluster-csi-drivers/manila-csi-driver-operator-settings, key config.yaml.
package operatorconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/yamlsize"
	"sigs.k8s.io/yaml"
)

const (
	// ConfigMapName and Key locate the configuration in the operator namespace.
	ConfigMapName = "manila-csi-driver-operator-settings"
	Key           = "config.yaml"
	// LegacyConfigMapName is where the configuration was kept until cluster-storage-operator took the
	// name for its GenericOperatorConfig (the operator's TLS settings, rewritten on every reconcile).
	// It is read only while ConfigMapName does not exist, and never when it holds CSO's content.
	LegacyConfigMapName = "manila-csi-driver-operator-config"
	// MinPollInterval bounds how often Manila may be asked.
	MinPollInterval = 5 * time.Second
)

// Config is the whole operator configuration. Every field is optional.
type Config struct {
	// PollInterval overrides --manila-poll-interval.
	PollInterval *metav1.Duration `json:"pollInterval,omitempty"`
	// StorageClasses controls the StorageClass per share type.
	StorageClasses StorageClasses `json:"storageClasses,omitempty"`
	// Topology maps Manila's availability zones to compute zones (see topology.go).
	Topology Topology `json:"topology,omitempty"`
	// ExportLocations chooses which of a share's export locations the node plugin mounts.
	ExportLocations ExportLocations `json:"exportLocations,omitempty"`
	// CephFS turns on the CephFS instance of the driver (see cephfs.go).
	CephFS CephFS `json:"cephfs,omitempty"`
	// ExtraMounts reach workloads by their propagation; the per-workload lists reach only that
	// workload. Global entries come first, then local ones, as in lib-common.
	ExtraMounts      []extramounts.VolMounts `json:"extraMounts,omitempty"`
	ControllerPlugin Workload                `json:"controllerPlugin,omitempty"`
	NodePlugin       Workload                `json:"nodePlugin,omitempty"`
	NFSNodePlugin    Workload                `json:"nfsNodePlugin,omitempty"`
}

// Workload holds one workload's own settings.
type Workload struct {
	ExtraMounts []extramounts.VolMounts `json:"extraMounts,omitempty"`
}

// MountEntries returns every extraMounts entry, named by where it stands in config.yaml; a
// per-workload entry is given that workload as its only propagation target.
func (c *Config) MountEntries() []extramounts.Entry {
	var out []extramounts.Entry
	for i, v := range c.ExtraMounts {
		out = append(out, extramounts.Entry{Source: fmt.Sprintf("extraMounts[%d]", i), VolMounts: v})
	}
	for _, w := range c.workloads() {
		for i, v := range w.workload.ExtraMounts {
			v.Propagation = []extramounts.PropagationType{w.target}
			out = append(out, extramounts.Entry{Source: fmt.Sprintf("%s.extraMounts[%d]", w.key, i), VolMounts: v})
		}
	}
	return out
}

type workloadRef struct {
	key      string
	target   extramounts.PropagationType
	workload Workload
}

func (c *Config) workloads() []workloadRef {
	return []workloadRef{
		{"controllerPlugin", extramounts.ControllerPlugin, c.ControllerPlugin},
		{"nodePlugin", extramounts.NodePlugin, c.NodePlugin},
		{"nfsNodePlugin", extramounts.NFSNodePlugin, c.NFSNodePlugin},
	}
}

// StorageClasses holds class defaults, per-share-type overrides, the default class and pruning.
type StorageClasses struct {
	// DefaultShareType names the share type whose class is the cluster's default StorageClass.
	DefaultShareType string `json:"defaultShareType,omitempty"`
	// Prune deletes the operator's classes of share types that are gone (see PruneAfterListings).
	Prune bool `json:"prune,omitempty"`
	// PruneAfterListings is how many successful listings in a row must lack the share type first.
	PruneAfterListings int `json:"pruneAfterListings,omitempty"`
	// Defaults apply to every class; ShareTypes override them per share-type name.
	Defaults   ClassSettings            `json:"defaults,omitempty"`
	ShareTypes map[string]ClassSettings `json:"shareTypes,omitempty"`
}

// ClassSettings are the settings of one StorageClass; nil means "not set here".
type ClassSettings struct {
	ShareNetworkID      *string `json:"shareNetworkID,omitempty"`
	NFSShareClient      *string `json:"nfs-shareClient,omitempty"`
	Availability        *string `json:"availability,omitempty"`
	AppendShareMetadata *string `json:"appendShareMetadata,omitempty"`
	// The CephFS class parameters of manila-csi-plugin; they reach only CephFS classes.
	CephFSMounter            *string                               `json:"cephfs-mounter,omitempty"`
	CephFSClientID           *string                               `json:"cephfs-clientID,omitempty"`
	CephFSKernelMountOptions *string                               `json:"cephfs-kernelMountOptions,omitempty"`
	CephFSFuseMountOptions   *string                               `json:"cephfs-fuseMountOptions,omitempty"`
	MountOptions             []string                              `json:"mountOptions,omitempty"`
	AllowVolumeExpansion     *bool                                 `json:"allowVolumeExpansion,omitempty"`
	ReclaimPolicy            *corev1.PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty"`
	VolumeBindingMode        *storagev1.VolumeBindingMode          `json:"volumeBindingMode,omitempty"`
}

// DefaultPruneAfterListings applies when pruning is on and no count is given.
const DefaultPruneAfterListings = 3

// For returns the settings of a share type: its overrides on top of the defaults.
func (s StorageClasses) For(shareType string) ClassSettings {
	out := s.Defaults
	o, ok := s.ShareTypes[shareType]
	if !ok {
		return out
	}
	pick := func(override, base *string) *string {
		if override != nil {
			return override
		}
		return base
	}
	out.ShareNetworkID = pick(o.ShareNetworkID, out.ShareNetworkID)
	out.NFSShareClient = pick(o.NFSShareClient, out.NFSShareClient)
	out.Availability = pick(o.Availability, out.Availability)
	out.AppendShareMetadata = pick(o.AppendShareMetadata, out.AppendShareMetadata)
	out.CephFSMounter = pick(o.CephFSMounter, out.CephFSMounter)
	out.CephFSClientID = pick(o.CephFSClientID, out.CephFSClientID)
	out.CephFSKernelMountOptions = pick(o.CephFSKernelMountOptions, out.CephFSKernelMountOptions)
	out.CephFSFuseMountOptions = pick(o.CephFSFuseMountOptions, out.CephFSFuseMountOptions)
	if o.MountOptions != nil {
		out.MountOptions = o.MountOptions
	}
	if o.AllowVolumeExpansion != nil {
		out.AllowVolumeExpansion = o.AllowVolumeExpansion
	}
	if o.ReclaimPolicy != nil {
		out.ReclaimPolicy = o.ReclaimPolicy
	}
	if o.VolumeBindingMode != nil {
		out.VolumeBindingMode = o.VolumeBindingMode
	}
	return out
}

// PruneAfter returns the number of absent listings before a class is deleted, 0 when pruning is off.
func (s StorageClasses) PruneAfter() int {
	if !s.Prune {
		return 0
	}
	if s.PruneAfterListings > 0 {
		return s.PruneAfterListings
	}
	return DefaultPruneAfterListings
}

// ExportLocations chooses the export location the node plugin mounts when a share has several (one
// per network, e.g. a tenant network and a storage network on a second NIC).
type ExportLocations struct {
	// Network is the network the nodes reach shares on: one CIDR, one IP address, or machineNetwork
	// (the cluster's machine network). Unset keeps the driver's default (its first export location
	// that is not admin-only), so that an upgrade never moves an existing cluster's mounts.
	Network string `json:"network,omitempty"`
}

// FieldError names the field path of an invalid or unknown setting.
type FieldError struct {
	Path   string
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("ConfigMap %s key %s: field %s: %s", ConfigMapName, Key, e.Path, e.Reason)
}

// Parse decodes and validates config.yaml. Unknown keys are errors.
func Parse(data []byte) (*Config, error) {
	if err := yamlsize.Check(data, yamlsize.MaxExpanded); err != nil {
		return nil, &FieldError{Path: "(document)", Reason: err.Error()}
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, &FieldError{Path: "(document)", Reason: "not valid YAML: " + err.Error()}
	}
	cfg := &Config{}
	if string(raw) == "null" {
		return cfg, nil
	}
	if err := checkDurations(raw); err != nil {
		return nil, err
	}
	strict, err := sigsjson.UnmarshalStrict(raw, cfg, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, &FieldError{Path: jsonPath(err), Reason: err.Error()}
	}
	if len(strict) > 0 {
		return nil, unknownField(strict[0])
	}
	return cfg, cfg.validate()
}

// checkDurations names the field of a duration that does not parse: metav1.Duration's own decoder
// reports only "time: invalid duration", without the field.
func checkDurations(raw []byte) error {
	var top map[string]any
	if json.Unmarshal(raw, &top) != nil {
		return nil // not an object: the strict decoder says so
	}
	if v, ok := top["pollInterval"].(string); ok {
		if _, err := time.ParseDuration(v); err != nil {
			return &FieldError{Path: "pollInterval", Reason: "not a duration (e.g. 60s, 5m)"}
		}
	}
	return nil
}

func unknownField(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, `unknown field "`); i >= 0 {
		path := strings.TrimSuffix(msg[i+len(`unknown field "`):], `"`)
		if path == "" || strings.HasSuffix(path, ".") {
			path += `""` // an empty key: say so rather than name no field
		}
		return &FieldError{Path: path, Reason: "unknown field"}
	}
	return &FieldError{Path: "(document)", Reason: msg}
}

func jsonPath(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return typeErr.Field
	}
	return "(document)"
}

func (c *Config) validate() error {
	for i, v := range c.ExtraMounts {
		err := extramounts.ValidatePropagation(extramounts.Entry{Source: fmt.Sprintf("extraMounts[%d]", i), VolMounts: v})
		var ee *extramounts.EntryError
		if errors.As(err, &ee) {
			return &FieldError{Path: ee.Entry + "." + ee.Field, Reason: ee.Reason}
		}
	}
	for _, w := range c.workloads() {
		for i, v := range w.workload.ExtraMounts {
			if len(v.Propagation) > 0 {
				return &FieldError{Path: fmt.Sprintf("%s.extraMounts[%d].propagation", w.key, i), Reason: "a per-workload entry reaches only its workload; put entries with propagation in the global extraMounts"}
			}
		}
	}
	if c.PollInterval != nil && c.PollInterval.Duration < MinPollInterval {
		return &FieldError{Path: "pollInterval", Reason: fmt.Sprintf("%s is below the minimum of %s", c.PollInterval.Duration, MinPollInterval)}
	}
	if err := c.Topology.validate(); err != nil {
		return err
	}
	if n := c.ExportLocations.Network; n != "" {
		if reason := exportlocation.Invalid(n); reason != "" {
			return &FieldError{Path: "exportLocations.network", Reason: reason}
		}
	}
	if err := c.CephFS.validate(); err != nil {
		return err
	}
	sc := c.StorageClasses
	if sc.PruneAfterListings < 0 {
		return &FieldError{Path: "storageClasses.pruneAfterListings", Reason: "must be at least 1"}
	}
	if err := sc.Defaults.validate("storageClasses.defaults"); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(sc.ShareTypes)) {
		if err := sc.ShareTypes[name].validate("storageClasses.shareTypes." + name); err != nil {
			return err
		}
	}
	return nil
}

func (s ClassSettings) validate(path string) error {
	if s.NFSShareClient != nil {
		if reason := invalidShareClient(*s.NFSShareClient); reason != "" {
			return &FieldError{Path: path + ".nfs-shareClient", Reason: reason}
		}
	}
	if s.AppendShareMetadata != nil {
		var m map[string]string
		if err := json.Unmarshal([]byte(*s.AppendShareMetadata), &m); err != nil {
			return &FieldError{Path: path + ".appendShareMetadata", Reason: "must be a JSON object of strings, e.g. '{\"team\":\"a\"}'"}
		}
	}
	if s.ReclaimPolicy != nil && *s.ReclaimPolicy != corev1.PersistentVolumeReclaimDelete && *s.ReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		return &FieldError{Path: path + ".reclaimPolicy", Reason: fmt.Sprintf("%q is not one of Delete, Retain", *s.ReclaimPolicy)}
	}
	if s.VolumeBindingMode != nil && *s.VolumeBindingMode != storagev1.VolumeBindingImmediate && *s.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
		return &FieldError{Path: path + ".volumeBindingMode", Reason: fmt.Sprintf("%q is not one of Immediate, WaitForFirstConsumer", *s.VolumeBindingMode)}
	}
	if err := s.validateCephFS(path); err != nil {
		return err
	}
	for i, o := range s.MountOptions {
		if strings.TrimSpace(o) == "" {
			return &FieldError{Path: fmt.Sprintf("%s.mountOptions[%d]", path, i), Reason: "empty mount option"}
		}
	}
	return nil
}

// invalidShareClient says what is wrong with an nfs-shareClient list, "" when nothing is: each
// comma-separated element is an IP address, a CIDR or machinenetwork.Keyword.
func invalidShareClient(v string) string {
	if strings.TrimSpace(v) == "" {
		return fmt.Sprintf("empty; give IP addresses, CIDRs or %s, comma-separated", machinenetwork.Keyword)
	}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == machinenetwork.Keyword || net.ParseIP(part) != nil {
			continue
		}
		if _, _, err := net.ParseCIDR(part); err != nil {
			return fmt.Sprintf("%q is not an IP address, a CIDR or %s", part, machinenetwork.Keyword)
		}
	}
	return ""
}
