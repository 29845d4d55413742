package openstack

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestDecodeAvailabilityZones(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"none", `{"availability_zones": []}`, []string{}},
		{"sorted and distinct", `{"availability_zones": [
		  {"id": "b", "name": "zone-b", "created_at": "2026-01-01T00:00:00.000000", "updated_at": null},
		  {"id": "a", "name": "zone-a"}, {"id": "c", "name": "zone-a"}, {"id": "d", "name": ""}]}`,
			[]string{"zone-a", "zone-b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l zoneList
			if err := json.Unmarshal([]byte(tc.body), &l); err != nil {
				t.Fatal(err)
			}
			if got := l.names(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("names = %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestSplitZones(t *testing.T) {
	for spec, want := range map[string][]string{
		"":              nil,
		"az1":           {"az1"},
		" az1 , az2,,":  {"az1", "az2"},
		"nova,nova-two": {"nova", "nova-two"},
	} {
		if got := splitZones(spec); !reflect.DeepEqual(got, want) {
			t.Errorf("splitZones(%q) = %#v, want %#v", spec, got, want)
		}
	}
}
