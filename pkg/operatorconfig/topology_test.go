package operatorconfig

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseTopology(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, wantPath string
	}{
		{"unset", "pollInterval: 30s\n", ""},
		{"none", "topology:\n  mode: None\n", ""},
		{"zonal with a mapping", "topology:\n  mode: Zonal\n  perZoneClasses: true\n  zones:\n    manila-a: [nova-1, nova-2]\n    manila-b: [nova-3]\n", ""},
		{"unknown mode", "topology:\n  mode: Regional\n", "topology.mode"},
		{"lower-case mode", "topology:\n  mode: zonal\n", "topology.mode"},
		{"empty compute list", "topology:\n  mode: Zonal\n  zones:\n    manila-a: []\n", "topology.zones.manila-a"},
		{"compute zone not a label value", "topology:\n  mode: Zonal\n  zones:\n    manila-a: [nova-1, \"nova 2\"]\n", "topology.zones.manila-a[1]"},
		{"empty compute zone", "topology:\n  mode: Zonal\n  zones:\n    manila-a: [\"\"]\n", "topology.zones.manila-a[0]"},
		{"unknown key", "topology:\n  mode: Zonal\n  zone: {}\n", "topology.zone"},
		{"wrong type", "topology:\n  perZoneClasses: sometimes\n", "topology.perZoneClasses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if tc.wantPath == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != tc.wantPath {
				t.Fatalf("error %v, want a field error at %s", err, tc.wantPath)
			}
		})
	}
}

func TestComputeZones(t *testing.T) {
	topo := Topology{Mode: TopologyZonal, Zones: map[string][]string{"manila-a": {"nova-2", "nova-1"}, "manila-b": {"nova-2"}}}
	for _, tc := range []struct {
		manila []string
		want   []string
	}{
		{nil, nil},
		{[]string{"manila-a"}, []string{"nova-1", "nova-2"}},
		{[]string{"manila-b", "manila-a"}, []string{"nova-1", "nova-2"}},
		{[]string{"unmapped"}, []string{"unmapped"}}, // identity
		{[]string{"manila-b", "unmapped"}, []string{"nova-2", "unmapped"}},
	} {
		if got := topo.ComputeZones(tc.manila); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ComputeZones(%v) = %v, want %v", tc.manila, got, tc.want)
		}
	}
}
