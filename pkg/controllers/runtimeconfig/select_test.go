package runtimeconfig

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func TestSelect(t *testing.T) {
	installConfig := func(networking string) func(string) (*corev1.ConfigMap, error) {
		return func(name string) (*corev1.ConfigMap, error) {
			if name != machinenetwork.InstallConfigName {
				t.Errorf("asked for ConfigMap %s", name)
			}
			return &corev1.ConfigMap{Data: map[string]string{machinenetwork.InstallConfigKey: "networking:\n" + networking}}, nil
		}
	}
	absent := func(name string) (*corev1.ConfigMap, error) {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
	}
	notAsked := func(string) (*corev1.ConfigMap, error) {
		t.Error("the install config is read although the setting does not name machineNetwork")
		return nil, errors.New("not asked")
	}
	tests := []struct {
		name       string
		config     string
		get        func(string) (*corev1.ConfigMap, error)
		wantJSON   string
		wantReason string
	}{
		{"unset", "", notAsked, `{}`, ""},
		{"a CIDR", "exportLocations:\n  network: 192.168.50.0/24\n", notAsked, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`, ""},
		{"machineNetwork", "exportLocations:\n  network: machineNetwork\n", installConfig("  machineNetwork:\n  - cidr: 10.0.0.0/16\n"),
			`{"nfs":{"matchExportLocationAddress":"10.0.0.0/16"}}`, ""},
		{"machineNetwork of an older install", "exportLocations:\n  network: machineNetwork\n", installConfig("  machineCIDR: 10.1.0.0/16\n"),
			`{"nfs":{"matchExportLocationAddress":"10.1.0.0/16"}}`, ""},
		{"machineNetwork, no install config", "exportLocations:\n  network: machineNetwork\n", absent, "", exportlocation.ReasonMachineNetworkUnknown},
		{"machineNetwork, no networking", "exportLocations:\n  network: machineNetwork\n", installConfig(""), "", exportlocation.ReasonMachineNetworkUnknown},
		{"machineNetwork, dual-stack", "exportLocations:\n  network: machineNetwork\n", installConfig("  machineNetwork:\n  - cidr: 10.0.0.0/16\n  - cidr: fd00::/48\n"),
			"", exportlocation.ReasonMachineNetworkAmbiguous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := operatorconfig.Parse([]byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			sel, err := Select(cfg, tt.get)
			if tt.wantReason != "" {
				var ue *exportlocation.UnresolvedError
				if !errors.As(err, &ue) || ue.Reason != tt.wantReason {
					t.Fatalf("error %v, want reason %s", err, tt.wantReason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cm := ConfigMap(sel)
			if got := cm.Data[exportlocation.Key]; got != tt.wantJSON {
				t.Errorf("runtime config %s, want %s", got, tt.wantJSON)
			}
		})
	}
}

// A lister error other than NotFound is not taken for an absent install config.
func TestSelectPassesOnListerErrors(t *testing.T) {
	cfg := &operatorconfig.Config{ExportLocations: operatorconfig.ExportLocations{Network: exportlocation.Keyword}}
	boom := errors.New("boom")
	_, err := Select(cfg, func(string) (*corev1.ConfigMap, error) { return nil, boom })
	var ue *exportlocation.UnresolvedError
	if !errors.Is(err, boom) || errors.As(err, &ue) {
		t.Errorf("error %v, want boom", err)
	}
}
