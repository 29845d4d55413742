package classplan

import (
	"reflect"
	"strings"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
)

// machineNetwork resolves in the defaults and per share type, inside a list too, and the classes get
// the resolved list; without a resolution their classes are held back.
func TestMachineNetworkInClasses(t *testing.T) {
	types := []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}, {ID: "3", Name: "bronze"}, {ID: "4", Name: "open"}}
	const config = `
storageClasses:
  defaults:
    nfs-shareClient: machineNetwork
  shareTypes:
    silver:
      nfs-shareClient: 192.168.7.0/24, machineNetwork, 10.0.0.0/16
    bronze:
      nfs-shareClient: 172.16.0.0/12
    open:
      nfs-shareClient: 0.0.0.0/0
`
	cases := []struct {
		name      string
		cidrs     []string
		want      map[string]string // class -> nfs-shareClient
		held      []string
		openToAll []string
	}{
		{"resolved, dual-stack", []string{"10.0.0.0/16", "fd00::/64"}, map[string]string{
			"csi-manila-gold":   "10.0.0.0/16,fd00::/64",
			"csi-manila-silver": "192.168.7.0/24,10.0.0.0/16,fd00::/64", // the duplicate once
			"csi-manila-bronze": "172.16.0.0/12",
			"csi-manila-open":   "0.0.0.0/0",
		}, nil, []string{"csi-manila-open"}},
		{"nothing resolved yet", nil, map[string]string{
			"csi-manila-bronze": "172.16.0.0/12",
			"csi-manila-open":   "0.0.0.0/0",
		}, []string{"csi-manila-gold", "csi-manila-silver"}, []string{"csi-manila-open"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			settings := mustConfig(t, config)
			if !UsesMachineNetwork(settings) {
				t.Fatal("UsesMachineNetwork is false")
			}
			wanted, _ := Desired(types, WithMachineNetwork(settings, tc.cidrs), nil)
			ready, held := HoldUnresolved(wanted)
			got := map[string]string{}
			for _, w := range ready {
				got[w.Class.Name] = w.Class.Parameters["nfs-shareClient"]
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
			if !reflect.DeepEqual(held, tc.held) {
				t.Errorf("held %v, want %v", held, tc.held)
			}
			if open := OpenToAnyHost(ready); !reflect.DeepEqual(open, tc.openToAll) {
				t.Errorf("open to any host %v, want %v", open, tc.openToAll)
			}
			if *settings.Defaults.NFSShareClient != "machineNetwork" || *settings.ShareTypes["silver"].NFSShareClient != "192.168.7.0/24, machineNetwork, 10.0.0.0/16" {
				t.Errorf("the config itself changed: %v", settings)
			}
		})
	}
}

func TestUsesMachineNetwork(t *testing.T) {
	for config, want := range map[string]bool{
		"": false,
		"storageClasses:\n  defaults:\n    nfs-shareClient: 10.0.0.0/8\n":                               false,
		"storageClasses:\n  shareTypes:\n    gold:\n      nfs-shareClient: 10.0.0.0/8,machineNetwork\n": true,
	} {
		if got := UsesMachineNetwork(mustConfig(t, config)); got != want {
			t.Errorf("%q: UsesMachineNetwork %v, want %v", config, got, want)
		}
	}
}

func TestOpenToAnyHost(t *testing.T) {
	types := []manilatypes.ShareType{{ID: "1", Name: "unset"}, {ID: "2", Name: "v4"}, {ID: "3", Name: "v6"}, {ID: "4", Name: "narrow"}}
	settings := mustConfig(t, `
storageClasses:
  shareTypes:
    v4: {nfs-shareClient: "10.0.0.0/8, 0.0.0.0/0"}
    v6: {nfs-shareClient: "::/0"}
    narrow: {nfs-shareClient: "10.0.0.0/8"}
`)
	wanted, _ := Desired(types, settings, nil)
	open := OpenToAnyHost(wanted)
	if want := []string{"csi-manila-unset", "csi-manila-v4", "csi-manila-v6"}; !reflect.DeepEqual(open, want) {
		t.Errorf("open %v, want %v", open, want)
	}
	if msg := OpenToAnyHostMessage(open); !strings.Contains(msg, "csi-manila-unset, csi-manila-v4, csi-manila-v6") || !strings.Contains(msg, "nfs-shareClient: machineNetwork") {
		t.Errorf("message %q", msg)
	}
}
