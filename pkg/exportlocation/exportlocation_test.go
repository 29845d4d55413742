package exportlocation

import (
	"errors"
	"strings"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

func TestResolve(t *testing.T) {
	installConfig := func(cidrs ...string) *machinenetwork.Resolution {
		return &machinenetwork.Resolution{CIDRs: cidrs, From: machinenetwork.FromInstallConfig}
	}
	tests := []struct {
		name       string
		setting    string
		mn         *machinenetwork.Resolution
		wantCIDR   string
		wantJSON   string
		wantReason string // an *UnresolvedError's reason
		wantInMsg  string
	}{
		{name: "unset: the driver's default", wantJSON: `{}`},
		{name: "a CIDR", setting: "192.168.50.0/24", wantCIDR: "192.168.50.0/24", wantJSON: `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`},
		{name: "a CIDR with host bits is masked", setting: " 192.168.50.9/24 ", wantCIDR: "192.168.50.0/24", wantJSON: `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`},
		{name: "an address is an exact match", setting: "192.168.50.7", wantCIDR: "192.168.50.7/32", wantJSON: `{"nfs":{"matchExportLocationAddress":"192.168.50.7/32"}}`},
		{name: "an IPv6 address", setting: "fd00:50::7", wantCIDR: "fd00:50::7/128", wantJSON: `{"nfs":{"matchExportLocationAddress":"fd00:50::7/128"}}`},
		{name: "an IPv6 CIDR", setting: "fd00:50::/64", wantCIDR: "fd00:50::/64", wantJSON: `{"nfs":{"matchExportLocationAddress":"fd00:50::/64"}}`},
		{name: "machineNetwork from the install config", setting: Keyword, mn: installConfig("10.0.0.0/16"), wantCIDR: "10.0.0.0/16", wantJSON: `{"nfs":{"matchExportLocationAddress":"10.0.0.0/16"}}`},
		{name: "machineNetwork without an install config", setting: Keyword, mn: nil, wantReason: ReasonMachineNetworkUnknown, wantInMsg: "ConfigMap kube-system/cluster-config-v1 is absent"},
		{name: "machineNetwork from the nodes only", setting: Keyword, mn: &machinenetwork.Resolution{CIDRs: []string{"10.0.0.5/32"}, From: machinenetwork.FromNodes},
			wantReason: ReasonMachineNetworkUnknown, wantInMsg: "is absent"},
		{name: "machineNetwork with an unusable install config", setting: Keyword,
			mn:         &machinenetwork.Resolution{CIDRs: []string{"10.0.0.5/32"}, From: machinenetwork.FromNodes, Fallback: "ConfigMap kube-system/cluster-config-v1 key install-config: no networking section; using the nodes' InternalIP addresses instead"},
			wantReason: ReasonMachineNetworkUnknown, wantInMsg: "(ConfigMap kube-system/cluster-config-v1 key install-config: no networking section)"},
		{name: "machineNetwork dual-stack", setting: Keyword, mn: installConfig("10.0.0.0/16", "fd00:10::/64"),
			wantReason: ReasonMachineNetworkAmbiguous, wantInMsg: "2 machine networks (10.0.0.0/16, fd00:10::/64)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := Resolve(tt.setting, tt.mn)
			if tt.wantReason != "" {
				var ue *UnresolvedError
				if !errors.As(err, &ue) || ue.Reason != tt.wantReason {
					t.Fatalf("error %v, want reason %s", err, tt.wantReason)
				}
				if !strings.HasPrefix(ue.Message, "exportLocations.network: machineNetwork: ") || !strings.Contains(ue.Message, tt.wantInMsg) {
					t.Errorf("message %q lacks the field or %q", ue.Message, tt.wantInMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.CIDR != tt.wantCIDR {
				t.Errorf("CIDR %q, want %q", sel.CIDR, tt.wantCIDR)
			}
			if got := RuntimeConfig(sel); got != tt.wantJSON {
				t.Errorf("runtime config %s, want %s", got, tt.wantJSON)
			}
		})
	}
}

func TestInvalid(t *testing.T) {
	for v, want := range map[string]string{
		"10.0.0.0/16":            "",
		"10.0.0.1":               "",
		"fd00::/64":              "",
		"machineNetwork":         "",
		"machinenetwork":         `"machinenetwork" is not a CIDR, an IP address or machineNetwork`,
		"10.0.0.0/33":            `"10.0.0.0/33" is not a CIDR`,
		"10.0.0.0/16, fd00::/64": "is a list; the driver matches one network",
		" ":                      "empty",
	} {
		got := Invalid(v)
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("Invalid(%q) = %q, want %q", v, got, want)
		}
	}
}

// Effect, shown by render and check-cloud, names the network and the failure a share without a match meets.
func TestEffectNamesTheCIDR(t *testing.T) {
	if e := Effect(Selection{CIDR: "10.0.0.0/16"}); !strings.Contains(e, "inside 10.0.0.0/16") || !strings.Contains(e, "no match") {
		t.Errorf("effect %q", e)
	}
	if e := Effect(Selection{}); !strings.Contains(e, "default") {
		t.Errorf("effect %q", e)
	}
}
