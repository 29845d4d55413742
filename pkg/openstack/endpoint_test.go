package openstack

import (
	"errors"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

func TestEndpointRegion(t *testing.T) {
	catalog := &tokens.ServiceCatalog{Entries: []tokens.CatalogEntry{
		{Type: "share", Endpoints: []tokens.Endpoint{{Region: "Old", Interface: "public", URL: "http://m/v2"}}},
		{Type: ManilaServiceType, Endpoints: []tokens.Endpoint{
			{Region: "One", Interface: "internal", URL: "http://m/v2"},
			{Region: "Two", Interface: "public", URL: "http://m/v2"},
		}},
	}}
	tests := []struct {
		name string
		want Endpoint
		url  string
		out  string
	}{
		{"region found when the credentials name none", Endpoint{Interface: "public"}, "http://m/v2/", "Two"},
		{"the interface counts", Endpoint{Interface: "internal"}, "http://m/v2/", "One"},
		{"the named region is kept", Endpoint{Region: "Three", Interface: "public"}, "http://m/v2/", "Three"},
		{"no match keeps what was asked", Endpoint{Interface: "admin"}, "http://m/v2/", ""},
	}
	for _, tt := range tests {
		if got := endpointRegion(catalog, tt.url, tt.want); got != tt.out {
			t.Errorf("%s: region %q, want %q", tt.name, got, tt.out)
		}
	}
}

// A 401 stays a FieldError for the operator and is told apart by errors.Is for check-cloud.
func TestCredentialsRefusedIsAFieldError(t *testing.T) {
	err := error(&FieldError{Field: "clouds.openstack.auth", Reason: "refused", cause: ErrCredentialsRefused})
	if !IsFieldError(err) || !errors.Is(err, ErrCredentialsRefused) {
		t.Errorf("IsFieldError %v, Is(ErrCredentialsRefused) %v", IsFieldError(err), errors.Is(err, ErrCredentialsRefused))
	}
	if errors.Is(&FieldError{Field: "clouds", Reason: "missing"}, ErrCredentialsRefused) {
		t.Error("a malformed file counts as refused credentials")
	}
}
