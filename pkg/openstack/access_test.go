package openstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
)

func manilaStub(t *testing.T, body string, got *[]string) *gophercloud.ServiceClient {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = append(*got, r.Method+" "+r.URL.Path+" "+r.URL.RawQuery+" "+r.Header.Get("X-OpenStack-Manila-API-Version"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{HTTPClient: *srv.Client()}, Endpoint: srv.URL + "/v2/", Type: "sharev2"}
}

// One GET of /shares/detail, the metadata filter a dict Manila parses.
func TestListSharesByMetadata(t *testing.T) {
	var got []string
	client := manilaStub(t, `{"shares": [{"id": "s1", "name": "pvc-1", "status": "available", "share_type_name": "ceph",
	  "metadata": {"csi.storage.k8s.io/pvc/name": "c", "csi.storage.k8s.io/pvc/namespace": "ns"}}]}`, &got)
	shares, err := ListSharesByMetadata(context.Background(), client, map[string]string{"csi.storage.k8s.io/pvc/name": "c", "csi.storage.k8s.io/pvc/namespace": "ns"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Share{{ID: "s1", Name: "pvc-1", Status: "available", Metadata: map[string]string{"csi.storage.k8s.io/pvc/name": "c", "csi.storage.k8s.io/pvc/namespace": "ns"}}}
	if !reflect.DeepEqual(shares, want) {
		t.Errorf("shares = %#v, want %#v", shares, want)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "GET /v2/shares/detail metadata=") || !strings.HasSuffix(got[0], " "+ManilaMicroversion) {
		t.Fatalf("requests = %q", got)
	}
	q := strings.Fields(got[0])[2]
	var filter map[string]string
	raw, _ := strings.CutPrefix(q, "metadata=")
	if dec, err := url.QueryUnescape(raw); err != nil || json.Unmarshal([]byte(dec), &filter) != nil || filter["csi.storage.k8s.io/pvc/namespace"] != "ns" {
		t.Errorf("metadata filter %q does not decode to the metadata", q)
	}
}

// One GET of /share-access-rules for the share; the rule's key is not decoded.
func TestListAccessRules(t *testing.T) {
	var got []string
	client := manilaStub(t, `{"access_list": [{"id": "r1", "access_type": "cephx", "access_to": "alice", "access_level": "rw",
	  "state": "error", "access_key": "AQD-secret-key=="}]}`, &got)
	rules, err := ListAccessRules(context.Background(), client, "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := []AccessRule{{ID: "r1", AccessType: "cephx", AccessTo: "alice", State: "error"}}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("rules = %#v, want %#v", rules, want)
	}
	if strings.Contains(fmt.Sprintf("%#v", rules), "secret") {
		t.Errorf("the key was decoded: %#v", rules)
	}
	if len(got) != 1 || got[0] != "GET /v2/share-access-rules share_id=s1 "+ManilaMicroversion {
		t.Errorf("requests = %q", got)
	}
}

func TestSharedManila(t *testing.T) {
	var s Shared
	if _, ok := s.Manila(); ok {
		t.Error("a client before any session was published")
	}
	s.Set(nil)
	if _, ok := s.Manila(); ok {
		t.Error("a client after the session was withdrawn")
	}
}
