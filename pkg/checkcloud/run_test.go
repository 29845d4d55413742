package checkcloud

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// closedURL is a Keystone URL nothing listens on: the login fails without leaving the machine.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/v3"
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const password = "Hunter2-not-printed"
	clouds := file("clouds.yaml", "clouds:\n  openstack:\n    auth:\n      auth_url: "+closedURL(t)+
		"\n      username: admin\n      password: "+password+"\n      project_name: admin\n      user_domain_name: Default\n      project_domain_name: Default\n")
	refuse := func(*operatorconfig.Config) error { return errors.New("refused by the validator") }
	tests := []struct {
		name   string
		opts   Options
		code   int
		stderr string
		stdout string
	}{
		{name: "unreadable clouds", opts: Options{CloudsFile: filepath.Join(dir, "absent")}, code: ExitBadInput, stderr: "reading --clouds"},
		{name: "invalid clouds", opts: Options{CloudsFile: file("bad.yaml", "clouds: [")}, code: ExitBadInput, stderr: "not valid YAML"},
		{name: "unknown cloud", opts: Options{CloudsFile: clouds, Cloud: "other"}, code: ExitBadInput, stderr: "clouds.other: missing (clouds in the file: openstack)"},
		{name: "unknown format", opts: Options{CloudsFile: clouds, Output: "xml"}, code: ExitBadInput, stderr: "unknown output format"},
		{name: "cacert not PEM", opts: Options{CloudsFile: clouds, CACertFile: file("ca.pem", "junk")}, code: ExitBadInput, stderr: "not a PEM certificate bundle"},
		{name: "invalid config", opts: Options{CloudsFile: clouds, ConfigFile: file("c1.yaml", "pollInterval: 1s\n")}, code: ExitBadInput, stderr: "pollInterval"},
		{name: "config refused by the operator's validator", opts: Options{CloudsFile: clouds, ConfigFile: file("c2.yaml", "{}\n"), ValidateConfig: refuse},
			code: ExitBadInput, stderr: "refused by the validator"},
		{name: "Keystone unreachable", opts: Options{CloudsFile: clouds, Timeout: 5 * time.Second}, code: ExitNotUsable, stdout: "Result: Manila is NOT usable: login to Keystone failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Cloud == "" {
				tt.opts.Cloud = "openstack"
			}
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tt.opts, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) || !strings.Contains(stdout.String(), tt.stdout) {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
			if strings.Contains(stdout.String()+stderr.String(), password) {
				t.Errorf("the password was printed")
			}
		})
	}
}

func TestScrub(t *testing.T) {
	got := string(scrub([]byte("a Secret-123 b abc"), []string{"Secret-123", "abc", ""}))
	if got != "a xxxxx b abc" {
		t.Errorf("scrub = %q: want the long secret masked, the too-short one left", got)
	}
}
