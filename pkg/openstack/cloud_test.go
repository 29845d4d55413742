package openstack

import (
	"errors"
	"strings"
	"testing"
)

func TestParseCloud(t *testing.T) {
	const secret = "hunter2-very-secret"
	tests := []struct {
		name      string
		yaml      string
		wantField string // "" means no error
	}{
		{"password", `
clouds:
  openstack:
    auth: {auth_url: "https://keystone:5000/v3", username: u, password: ` + secret + `, project_name: p}
`, ""},
		{"user id", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", user_id: abc, password: ` + secret + `}
`, ""},
		{"application credential by id", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", application_credential_id: id, application_credential_secret: ` + secret + `}
`, ""},
		{"application credential by name", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", username: u, application_credential_name: n, application_credential_secret: ` + secret + `}
`, ""},
		{"not yaml", "clouds: [\n  - " + secret + ": : :", "clouds"},
		{"type error quotes no value", "clouds:\n  openstack:\n    verify: " + secret + "\n", "clouds"},
		{"no clouds", "other: 1\n", "clouds"},
		{"other cloud only", "clouds:\n  devstack:\n    auth: {auth_url: x}\n", "clouds.openstack"},
		{"no auth", "clouds:\n  openstack:\n    region_name: r\n", "clouds.openstack.auth"},
		{"no auth_url", "clouds:\n  openstack:\n    auth: {username: u, password: " + secret + "}\n", "clouds.openstack.auth.auth_url"},
		{"no credential", "clouds:\n  openstack:\n    auth: {auth_url: http://k/v3, username: u}\n", "clouds.openstack.auth.password"},
		{"password without user", "clouds:\n  openstack:\n    auth: {auth_url: http://k/v3, password: " + secret + "}\n", "clouds.openstack.auth.username"},
		{"app credential secret without id", "clouds:\n  openstack:\n    auth: {auth_url: http://k/v3, application_credential_secret: " + secret + "}\n", "clouds.openstack.auth.application_credential_id"},
		{"auth_url not a URL", "clouds:\n  openstack:\n    auth: {auth_url: keystone.example, username: u, password: " + secret + "}\n", "clouds.openstack.auth.auth_url"},
		{"auth_url without host", "clouds:\n  openstack:\n    auth: {auth_url: \"https:///v3\", username: u, password: " + secret + "}\n", "clouds.openstack.auth.auth_url"},
		{"auth_url of another scheme", "clouds:\n  openstack:\n    auth: {auth_url: \"ftp://k/v3\", username: u, password: " + secret + "}\n", "clouds.openstack.auth.auth_url"},
		{"user_id with a user domain", "clouds:\n  openstack:\n    auth: {auth_url: http://k/v3, user_id: abc, user_domain_name: Default, password: " + secret + "}\n", "clouds.openstack.auth.user_domain_name"},
		{"token only", "clouds:\n  openstack:\n    auth: {auth_url: http://k/v3, token: " + secret + "}\n", "clouds.openstack.auth.token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cloud, err := ParseCloud([]byte(tt.yaml), "openstack")
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if cloud.AuthInfo == nil || cloud.AuthInfo.AuthURL == "" {
					t.Fatalf("auth not parsed: %+v", cloud)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one naming %s", tt.wantField)
			}
			fe, ok := err.(*FieldError)
			if !ok || fe.Field != tt.wantField {
				t.Fatalf("error %v, want a FieldError for %s", err, tt.wantField)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("error message leaks the secret: %v", err)
			}
		})
	}
}

// A clouds.yaml that would expand past the bound is refused before anything expands it.
func TestParseCloudBoundsAliases(t *testing.T) {
	doc := "pad: &p [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nmore: [" + strings.Repeat("*p,", 300) + "*p]\nclouds: {}\n"
	_, err := ParseCloud([]byte(doc), "openstack")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "clouds" || !strings.Contains(fe.Reason, "expands to more than") {
		t.Errorf("ParseCloud: %v, want a bound error on field clouds", err)
	}
}
