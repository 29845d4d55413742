package cloudcredentials

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

// Whatever clouds.yaml holds, translation never panics, a password never shows in a parse error,
// and an accepted one reaches the driver secret unchanged.
func FuzzDriverSecret(f *testing.F) {
	for _, seed := range []string{"hunter2", "p@ss: word", "'quoted'", "\"x\"", "{a: b}", "- list", "&anchor", "*alias", "#hash", "multi\nline", ""} {
		f.Add(seed, "https://keystone:5000/v3", false)
	}
	f.Fuzz(func(t *testing.T, password, authURL string, caMounted bool) {
		if !utf8.ValidString(password) || !utf8.ValidString(authURL) {
			return // YAML text is UTF-8: such a Secret cannot be written as clouds.yaml
		}
		doc := "clouds:\n  openstack:\n    auth:\n      auth_url: " + quote(authURL) + "\n      username: u\n      password: " + quote(password) +
			"\n      project_name: p\n      user_domain_name: Default\n    region_name: r\n"
		cloud, err := openstack.ParseCloud([]byte(doc), "openstack")
		if err != nil {
			if len(password) >= 6 && strings.Contains(err.Error(), password) {
				t.Fatalf("the parse error shows the password: %v", err)
			}
			return
		}
		data := DriverSecret(cloud, caMounted)
		if password != "" && string(data["os-password"]) != password {
			t.Fatalf("os-password %q, want %q", data["os-password"], password)
		}
		for k := range data {
			if !strings.HasPrefix(k, "os-") {
				t.Fatalf("unexpected key %q", k)
			}
		}
	})
}

// quote writes s as a YAML double-quoted scalar.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString("\\x")
			b.WriteString(strings.ToUpper(string("0123456789abcdef"[r>>4])) + string("0123456789abcdef"[r&15]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
