package openstack

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
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

// One GET of /availability-zones at the operator's microversion (2.7 moved the resource there).
func TestListAvailabilityZonesRequest(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-OpenStack-Manila-API-Version"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"availability_zones": [{"name": "b"}, {"name": "a"}]}`))
	}))
	defer srv.Close()
	client := &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{HTTPClient: *srv.Client()}, Endpoint: srv.URL + "/v2/", Type: "sharev2"}
	zones, err := ListAvailabilityZones(context.Background(), client)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(zones, want) {
		t.Errorf("zones %v, want %v", zones, want)
	}
	if want := []string{"GET /v2/availability-zones " + ManilaMicroversion}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
}
