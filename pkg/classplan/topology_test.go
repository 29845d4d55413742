package classplan

import (
	"reflect"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// zonalClass is what a test checks of a Zonal class.
type zonalClass struct {
	name, availability, zones, zoneClass string
	allowed                              []string // compute zones; nil: no allowedTopologies
}

func TestZonal(t *testing.T) {
	open := manilatypes.ShareType{ID: "1", Name: "open"}
	limited := manilatypes.ShareType{ID: "2", Name: "limited", AvailabilityZones: []string{"manila-a", "manila-b"}}
	single := manilatypes.ShareType{ID: "3", Name: "single", AvailabilityZones: []string{"manila-b", "manila-gone"}}
	gone := manilatypes.ShareType{ID: "4", Name: "gone", AvailabilityZones: []string{"manila-gone"}}
	mapping := map[string][]string{"manila-a": {"nova-2", "nova-1"}, "manila-b": {"nova-3"}}
	tests := []struct {
		name        string
		types       []manilatypes.ShareType
		topo        operatorconfig.Topology
		zones       []string
		settings    operatorconfig.StorageClasses
		owned       map[string]Owner
		want        []zonalClass
		wantSkipped []string // share-type names
	}{
		{
			name:  "identity mapping",
			types: []manilatypes.ShareType{open, limited},
			topo:  operatorconfig.Topology{Mode: operatorconfig.TopologyZonal},
			zones: []string{"manila-a", "manila-b"},
			want: []zonalClass{
				{name: "csi-manila-limited", zones: "manila-a,manila-b", allowed: []string{"manila-a", "manila-b"}},
				{name: "csi-manila-open"},
			},
		},
		{
			name:  "mapped to compute zones",
			types: []manilatypes.ShareType{open, limited},
			topo:  operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, Zones: mapping},
			zones: []string{"manila-a", "manila-b"},
			want: []zonalClass{
				{name: "csi-manila-limited", zones: "manila-a,manila-b", allowed: []string{"nova-1", "nova-2", "nova-3"}},
				{name: "csi-manila-open"},
			},
		},
		{
			name:  "one zone left: availability names it",
			types: []manilatypes.ShareType{single},
			topo:  operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, Zones: mapping},
			zones: []string{"manila-a", "manila-b"},
			want:  []zonalClass{{name: "csi-manila-single", availability: "manila-b", zones: "manila-b", allowed: []string{"nova-3"}}},
		},
		{
			name:        "no zone left: no class, so the existing one turns stale",
			types:       []manilatypes.ShareType{open, gone},
			topo:        operatorconfig.Topology{Mode: operatorconfig.TopologyZonal},
			zones:       []string{"manila-a"},
			want:        []zonalClass{{name: "csi-manila-open"}},
			wantSkipped: []string{"gone"},
		},
		{
			name:     "the availability setting limits the type",
			types:    []manilatypes.ShareType{open},
			topo:     operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, Zones: mapping},
			zones:    []string{"manila-a", "manila-b"},
			settings: operatorconfig.StorageClasses{Defaults: operatorconfig.ClassSettings{Availability: ptr("manila-a")}},
			want:     []zonalClass{{name: "csi-manila-open", availability: "manila-a", zones: "manila-a", allowed: []string{"nova-1", "nova-2"}}},
		},
		{
			name:  "per-zone classes",
			types: []manilatypes.ShareType{open, limited},
			topo:  operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, Zones: mapping, PerZoneClasses: true},
			zones: []string{"manila-a", "manila-b", "Manila_C"},
			want: []zonalClass{
				{name: "csi-manila-limited", zones: "manila-a,manila-b", allowed: []string{"nova-1", "nova-2", "nova-3"}},
				{name: "csi-manila-limited-manila-a", availability: "manila-a", zones: "manila-a", zoneClass: "manila-a", allowed: []string{"nova-1", "nova-2"}},
				{name: "csi-manila-limited-manila-b", availability: "manila-b", zones: "manila-b", zoneClass: "manila-b", allowed: []string{"nova-3"}},
				{name: "csi-manila-open"},
				{name: "csi-manila-open-manila-a", availability: "manila-a", zones: "manila-a", zoneClass: "manila-a", allowed: []string{"nova-1", "nova-2"}},
				{name: "csi-manila-open-manila-b", availability: "manila-b", zones: "manila-b", zoneClass: "manila-b", allowed: []string{"nova-3"}},
				{name: "csi-manila-open-manila-c", availability: "Manila_C", zones: "Manila_C", zoneClass: "Manila_C", allowed: []string{"Manila_C"}},
			},
		},
		{
			name:        "a per-zone name owned by another share type",
			types:       []manilatypes.ShareType{open},
			topo:        operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, PerZoneClasses: true},
			zones:       []string{"x"},
			owned:       map[string]Owner{"csi-manila-open-x": {ID: "99", Name: "open-x"}},
			want:        []zonalClass{{name: "csi-manila-open"}},
			wantSkipped: []string{"open"},
		},
		{
			name:        "a Manila zone that cannot be a compute zone label, unmapped",
			types:       []manilatypes.ShareType{{ID: "5", Name: "odd", AvailabilityZones: []string{"zone one"}}},
			topo:        operatorconfig.Topology{Mode: operatorconfig.TopologyZonal},
			zones:       []string{"zone one"},
			wantSkipped: []string{"odd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wanted, _ := Desired(tt.types, tt.settings, tt.owned)
			got, skipped := Zonal(wanted, tt.topo, tt.zones, tt.owned)
			var gotClasses []zonalClass
			for _, w := range got {
				c := w.Class
				if c.Parameters[parameterAutoTopology] != "true" || *c.VolumeBindingMode != storagev1.VolumeBindingWaitForFirstConsumer {
					t.Errorf("%s: autoTopology %q, volumeBindingMode %s", c.Name, c.Parameters[parameterAutoTopology], *c.VolumeBindingMode)
				}
				zc := zonalClass{name: c.Name, availability: c.Parameters[parameterAvailability], zones: c.Annotations[ZonesAnnotation], zoneClass: c.Annotations[ZoneClassAnnotation]}
				for _, term := range c.AllowedTopologies {
					for _, req := range term.MatchLabelExpressions {
						if req.Key != TopologyKey {
							t.Errorf("%s: allowedTopologies key %s", c.Name, req.Key)
						}
						zc.allowed = append(zc.allowed, req.Values...)
					}
				}
				gotClasses = append(gotClasses, zc)
			}
			if !reflect.DeepEqual(gotClasses, tt.want) {
				t.Errorf("classes:\n got %+v\nwant %+v", gotClasses, tt.want)
			}
			var gotSkipped []string
			for _, s := range skipped {
				gotSkipped = append(gotSkipped, s.ShareType.Name)
			}
			if !reflect.DeepEqual(gotSkipped, tt.wantSkipped) {
				t.Errorf("skipped %v, want %v (%+v)", gotSkipped, tt.wantSkipped, skipped)
			}
		})
	}
}

// A per-zone class is never the default, the type's own class may be; each carries its own name as
// the name the operator gave it (a per-zone class is made from the type's, so it is no copy).
func TestZonalDefaultStaysOnTheTypeClass(t *testing.T) {
	settings := operatorconfig.StorageClasses{DefaultShareType: "gold"}
	wanted, _ := Desired([]manilatypes.ShareType{{ID: "1", Name: "gold"}}, settings, nil)
	got, _ := Zonal(wanted, operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, PerZoneClasses: true}, []string{"a", "b"}, nil)
	if len(got) != 3 {
		t.Fatalf("got %d classes; want the type's and two per-zone", len(got))
	}
	for _, w := range got {
		_, isDefault := w.Class.Annotations[DefaultClassAnnotation]
		if isDefault != (w.Class.Name == "csi-manila-gold") {
			t.Errorf("%s: default-class annotation present %v", w.Class.Name, isDefault)
		}
		if given := w.Class.Annotations[ClassNameAnnotation]; given != w.Class.Name {
			t.Errorf("%s: %s=%q; want its own name", w.Class.Name, ClassNameAnnotation, given)
		}
	}
}

// The planner's side: a vanished zone marks the classes it affects stale (never deletes them without
// pruning), a changed allowedTopologies recreates, and a per-zone class of a type whose main class
// keeps its name never takes that name over.
func TestPlanZones(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	topo := operatorconfig.Topology{Mode: operatorconfig.TopologyZonal, PerZoneClasses: true}
	types := []manilatypes.ShareType{{ID: "1", Name: "gold", AvailabilityZones: []string{"a", "b"}}, {ID: "2", Name: "single", AvailabilityZones: []string{"b"}}}
	owners := func(classes []*storagev1.StorageClass) map[string]Owner {
		out := map[string]Owner{}
		for _, sc := range classes {
			out[sc.Name] = Owner{ID: sc.Annotations[ShareTypeIDAnnotation], Name: sc.Annotations[ShareTypeNameAnnotation], PerZone: PerZone(sc)}
		}
		return out
	}
	desired := func(zones []string, owned map[string]Owner) []Wanted {
		wanted, _ := Desired(types, operatorconfig.StorageClasses{}, owned)
		w, _ := Zonal(wanted, topo, zones, owned)
		return w
	}
	before := desired([]string{"a", "b"}, nil)
	existing := map[string]*storagev1.StorageClass{}
	var classes []*storagev1.StorageClass
	for _, w := range before {
		existing[w.Class.Name] = w.Class
		classes = append(classes, w.Class)
	}
	after := desired([]string{"a"}, owners(classes))
	zones := map[string]bool{"a": true}
	listed := map[string]bool{"1": true, "2": true}
	r := Plan(Input{State: operatorv1.ManagedStorageClass, Wanted: after, Existing: existing, Listed: listed, Zones: zones, Now: now})

	var recreated, marked []string
	for _, a := range r.Actions {
		switch {
		case a.Kind == Recreate:
			recreated = append(recreated, a.Class.Name)
		case a.Kind == Update && a.Class.Annotations[StaleAnnotation] != "":
			marked = append(marked, a.Class.Name)
		default:
			t.Errorf("unexpected %s of %s", a.Kind, a.Class.Name)
		}
	}
	// gold lost zone b: its allowedTopologies shrink (recreate); its zone-b class and single (only in b) are stale.
	if want := []string{"csi-manila-gold"}; !reflect.DeepEqual(recreated, want) {
		t.Errorf("recreated %v, want %v", recreated, want)
	}
	wantStale := []string{"csi-manila-gold-b", "csi-manila-single", "csi-manila-single-b"}
	if !reflect.DeepEqual(marked, wantStale) || !reflect.DeepEqual(r.Stale, wantStale) {
		t.Errorf("marked %v, stale %v; want %v", marked, r.Stale, wantStale)
	}
	for _, w := range after {
		if strings.HasSuffix(w.Class.Name, "-b") {
			t.Errorf("a class for the vanished zone is still wanted: %s", w.Class.Name)
		}
	}

	// With pruning, they go only after the configured count of listings.
	absent := map[string]int{"csi-manila-gold-b": 3, "csi-manila-single": 2}
	r = Plan(Input{State: operatorv1.ManagedStorageClass, Wanted: after, Existing: existing, Listed: listed, Zones: zones, Absent: absent, PruneAfter: 3, Now: now})
	var deleted []string
	for _, a := range r.Actions {
		if a.Kind == Delete {
			deleted = append(deleted, a.Class.Name)
		}
	}
	if want := []string{"csi-manila-gold-b"}; !reflect.DeepEqual(deleted, want) {
		t.Errorf("deleted %v, want %v", deleted, want)
	}

	// Topology turned off: the main classes are recreated without topology; per-zone ones are stale.
	plain, _ := Desired(types, operatorconfig.StorageClasses{}, owners(classes))
	r = Plan(Input{State: operatorv1.ManagedStorageClass, Wanted: plain, Existing: existing, Listed: listed, Now: now})
	if want := []string{"csi-manila-gold-a", "csi-manila-gold-b", "csi-manila-single-b"}; !reflect.DeepEqual(r.Stale, want) {
		t.Errorf("stale with topology off %v, want %v", r.Stale, want)
	}
	for _, a := range r.Actions {
		if a.Kind == Recreate && (a.Class.AllowedTopologies != nil || *a.Class.VolumeBindingMode != storagev1.VolumeBindingImmediate) {
			t.Errorf("%s recreated with topology: %+v", a.Class.Name, a.Class)
		}
	}
}

func ptr(s string) *string { return &s }
