package operator

import (
	"strings"
	"testing"
	"time"
)

func TestSettings(t *testing.T) {
	all := map[string]string{}
	for _, name := range imageEnv {
		all[name] = "example.com/" + strings.ToLower(name)
	}
	with := func(extra map[string]string, drop ...string) func(string) string {
		return func(name string) string {
			for _, d := range drop {
				if d == name {
					return ""
				}
			}
			if v, ok := extra[name]; ok {
				return v
			}
			return all[name]
		}
	}
	tests := []struct {
		name       string
		getenv     func(string) string
		interval   time.Duration
		timeout    time.Duration
		wantErr    string
		wantPolicy string
	}{
		{name: "defaults", getenv: with(nil), interval: time.Minute, wantPolicy: "None"},
		{name: "File policy", getenv: with(map[string]string{fsGroupPolicyEnv: "File"}), interval: time.Minute, wantPolicy: "File"},
		{name: "invalid policy", getenv: with(map[string]string{fsGroupPolicyEnv: "Sometimes"}), interval: time.Minute,
			wantErr: "CSI_FSGROUP_POLICY=\"Sometimes\" is not a valid fsGroupPolicy"},
		{name: "missing images", getenv: with(nil, "NFS_DRIVER_IMAGE", "RESIZER_IMAGE"), interval: time.Minute,
			wantErr: "NFS_DRIVER_IMAGE, RESIZER_IMAGE"},
		{name: "poll too fast", getenv: with(nil), interval: time.Second, wantErr: "below the minimum of 5s"},
		{name: "negative request timeout", getenv: with(nil), interval: time.Minute, timeout: -time.Second, wantErr: "--openstack-request-timeout -1s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{PollInterval: tt.interval, RequestTimeout: tt.timeout, Getenv: tt.getenv}
			s, err := o.settings()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.fsGroupPolicy != tt.wantPolicy || len(s.images) != len(imageEnv) {
				t.Errorf("settings %+v", s)
			}
		})
	}
}
