package openstack

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestRedactText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Get \"http://admin:s3cr%40t@keystone:5000/v3\": refused", "Get \"http://admin:xxxxx@keystone:5000/v3\": refused"},
		{"https://u:p@a/ and http://v:q@b:1/x", "https://u:xxxxx@a/ and http://v:xxxxx@b:1/x"},
		{"http://only-user@host/v3", "http://only-user@host/v3"},
		{"no url here: a:b@c", "no url here: a:b@c"},
		{"http://host/v3?x=a:b@c", "http://host/v3?x=a:b@c"},
	} {
		if got := RedactText(tc.in); got != tc.want {
			t.Errorf("RedactText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	base := errors.New("boom")
	err := Redact(fmt.Errorf("at http://u:pw@h/: %w", base))
	if strings.Contains(err.Error(), "pw") || !errors.Is(err, base) {
		t.Errorf("Redact: %q, Is(base)=%v", err, errors.Is(err, base))
	}
}

// An auth_url with a password in its userinfo never shows in the error of a failed login.
func TestConnectErrorHidesURLPassword(t *testing.T) {
	clouds := []byte(`clouds:
  openstack:
    auth:
      auth_url: http://admin:Sentinel-Pw-1@127.0.0.1:1/v3
      username: admin
      password: other
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
`)
	_, err := Connect(context.Background(), clouds, "openstack", Options{})
	if err == nil {
		t.Fatal("want a connection error")
	}
	if strings.Contains(err.Error(), "Sentinel-Pw-1") {
		t.Errorf("the error shows the URL's password: %v", err)
	}
}
