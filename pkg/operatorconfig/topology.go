package operatorconfig

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TopologyMode says whether the driver and the classes are topology-aware.
type TopologyMode string

const (
	// TopologyNone is the default: no topology, classes bind at once and reach every node.
	TopologyNone TopologyMode = "None"
	// TopologyZonal runs the driver with topology and makes classes follow Manila's zones.
	TopologyZonal TopologyMode = "Zonal"
)

// Topology maps Manila's availability zones onto the cluster's compute zones.
type Topology struct {
	// Mode is None (default) or Zonal.
	Mode TopologyMode `json:"mode,omitempty"`
	// Zones maps a Manila zone to the compute zones whose nodes can mount its shares; a Manila zone
	// not listed maps to the compute zone of the same name.
	Zones map[string][]string `json:"zones,omitempty"`
	// PerZoneClasses adds, in Zonal mode, one class per share type and Manila zone.
	PerZoneClasses bool `json:"perZoneClasses,omitempty"`
}

// Zonal reports whether topology is on.
func (t Topology) Zonal() bool { return t.Mode == TopologyZonal }

// ComputeZones returns the compute zones that can reach the given Manila zones, sorted and distinct.
func (t Topology) ComputeZones(manilaZones []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, mz := range manilaZones {
		mapped, ok := t.Zones[mz]
		if !ok {
			mapped = []string{mz}
		}
		for _, cz := range mapped {
			if !seen[cz] {
				seen[cz] = true
				out = append(out, cz)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (t Topology) validate() error {
	switch t.Mode {
	case "", TopologyNone, TopologyZonal:
	default:
		return &FieldError{Path: "topology.mode", Reason: fmt.Sprintf("%q is not one of None, Zonal", t.Mode)}
	}
	for _, mz := range slices.Sorted(maps.Keys(t.Zones)) {
		path := "topology.zones." + mz
		if strings.TrimSpace(mz) == "" {
			return &FieldError{Path: `topology.zones.""`, Reason: "empty Manila zone name"}
		}
		if len(t.Zones[mz]) == 0 {
			return &FieldError{Path: path, Reason: "lists no compute zone; remove the entry to map the Manila zone to the compute zone of the same name"}
		}
		for i, cz := range t.Zones[mz] {
			// A compute zone is the value of the node plugin's topology label.
			errs := validation.IsValidLabelValue(cz)
			if cz == "" {
				errs = append(errs, "must not be empty")
			}
			if len(errs) > 0 {
				return &FieldError{Path: fmt.Sprintf("%s[%d]", path, i), Reason: fmt.Sprintf("%q is not a valid compute zone (a label value): %s", cz, strings.Join(errs, "; "))}
			}
		}
	}
	return nil
}
