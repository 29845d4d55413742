package classplan

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

const (
	// TopologyKey is the manila-csi-plugin's topology key: with --with-topology its node plugin
	// reports the node's compute zone (from the metadata service) under it.
	TopologyKey = "topology.manila.csi.openstack.org/zone"
	// ZonesAnnotation lists the Manila zones a class's shares are made in, on classes limited to
	// some: when none of them is listed by Manila any more, the class is stale.
	ZonesAnnotation = "manila.csi.openstack.org/availability-zones"
	// ZoneClassAnnotation marks a per-zone class (perZoneClasses) with its Manila zone: such a class
	// is stale once it is no longer wanted, and never stands for its share type's own class.
	ZoneClassAnnotation   = "manila.csi.openstack.org/availability-zone-class"
	parameterAutoTopology = "autoTopology"
)

// Zonal makes the wanted classes topology-aware (topology.mode Zonal), given Manila's zone list of
// the same poll. Every class gets autoTopology and WaitForFirstConsumer, so a claim is provisioned
// once its pod has a node. A class of a type limited to some Manila zones (its availability_zones
// extra spec, or the availability setting) gets allowedTopologies listing the compute zones that can
// reach those zones, and when it is one zone, availability naming it, since autoTopology would ask
// Manila for the node's compute zone. A type none of whose zones Manila lists gets no class: its
// existing class is then stale, never deleted. With perZoneClasses, each type also gets a class per
// Manila zone it can use, named <its class>-<zone>. NFS and CephFS classes alike: the driver's two
// instances report the node's zone under the same TopologyKey.
func Zonal(wanted []Wanted, topo operatorconfig.Topology, manilaZones []string, owned map[string]Owner) ([]Wanted, []Skipped) {
	listed := map[string]bool{}
	for _, z := range manilaZones {
		listed[z] = true
	}
	taken := map[string]bool{}
	for _, w := range wanted {
		taken[w.Class.Name] = true
	}
	var out []Wanted
	var skipped []Skipped
	for _, w := range wanted {
		st := w.ShareType
		limits := st.AvailabilityZones
		if a := w.Class.Parameters[parameterAvailability]; a != "" {
			limits = []string{a}
		}
		zones := manilaZones
		if len(limits) > 0 {
			zones = nil
			for _, z := range limits {
				if listed[z] {
					zones = append(zones, z)
				}
			}
			if len(zones) == 0 {
				skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNoZone, Protocol: ProtocolOf(w.Class), Reason: fmt.Sprintf(
					"share type %q is limited to availability zones %s, none of which Manila lists now", st.Name, strings.Join(limits, ", "))})
				continue
			}
		}
		if reason := invalidComputeZones(topo, zones); reason != "" {
			skipped = append(skipped, Skipped{ShareType: st, Kind: SkipZoneName, NeedsAction: true, Protocol: ProtocolOf(w.Class), Reason: fmt.Sprintf("share type %q: %s", st.Name, reason)})
			continue
		}
		limited := len(limits) > 0
		makeZonal(w.Class, topo, zones, limited)
		out = append(out, w)
		if !topo.PerZoneClasses {
			continue
		}
		for _, z := range zones {
			name := w.Class.Name + "-" + sanitize(z)
			if o, ok := owned[name]; sanitize(z) == "" || len(name) > maxNameLength || taken[name] || (ok && (o.ID != st.ID || o.protocol() != ProtocolOf(w.Class))) {
				skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNameTaken, NeedsAction: true, Protocol: ProtocolOf(w.Class), Reason: fmt.Sprintf(
					"share type %q: no class for availability zone %q: the name %s is not available", st.Name, z, name)})
				continue
			}
			taken[name] = true
			class := w.Class.DeepCopy()
			class.Name = name
			class.Annotations[ClassNameAnnotation] = name
			delete(class.Annotations, DefaultClassAnnotation) // the type's own class may be the default, never a zone's
			class.Parameters[parameterAvailability] = z
			class.Annotations[ZoneClassAnnotation] = z
			makeZonal(class, topo, []string{z}, true)
			out = append(out, Wanted{ShareType: st, Class: class})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Class.Name < out[j].Class.Name })
	return out, skipped
}

// makeZonal sets the topology fields of a class whose shares are made in zones (limited) or in the
// zone named like the node's (not limited).
func makeZonal(class *storagev1.StorageClass, topo operatorconfig.Topology, zones []string, limited bool) {
	class.Parameters[parameterAutoTopology] = "true"
	binding := storagev1.VolumeBindingWaitForFirstConsumer
	class.VolumeBindingMode = &binding
	if !limited {
		return
	}
	class.Annotations[ZonesAnnotation] = strings.Join(zones, ",")
	if len(zones) == 1 {
		class.Parameters[parameterAvailability] = zones[0]
	}
	class.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
		{Key: TopologyKey, Values: topo.ComputeZones(zones)},
	}}}
}

// invalidComputeZones names a Manila zone whose compute zone (itself, when unmapped) cannot be a
// topology label value, so that the class would be refused.
func invalidComputeZones(topo operatorconfig.Topology, zones []string) string {
	for _, z := range zones {
		for _, cz := range topo.ComputeZones([]string{z}) {
			if errs := validation.IsValidLabelValue(cz); len(errs) > 0 {
				return fmt.Sprintf("availability zone %q is not a valid compute zone name (%s); map it with topology.zones.%s in ConfigMap %s",
					z, strings.Join(errs, "; "), z, operatorconfig.ConfigMapName)
			}
		}
	}
	return ""
}

// PerZone reports whether the class is a per-zone class.
func PerZone(sc *storagev1.StorageClass) bool { return sc.Annotations[ZoneClassAnnotation] != "" }

// zonesGone reports whether a class limited to Manila zones has none of them left in zones (nil:
// zones were not listed, as when topology is off).
func zonesGone(sc *storagev1.StorageClass, zones map[string]bool) bool {
	annotated := sc.Annotations[ZonesAnnotation]
	if annotated == "" {
		return false
	}
	for _, z := range strings.Split(annotated, ",") {
		if zones[z] {
			return false
		}
	}
	return true
}
