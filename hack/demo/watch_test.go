package main

import (
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

func TestConverged(t *testing.T) {
	installed := map[string]bool{
		"Deployment " + names.OperandNamespace + "/" + framework.ControllerDeployment: true,
		"DaemonSet " + names.OperandNamespace + "/" + framework.NodeDaemonSet:         true,
		"DaemonSet " + names.OperandNamespace + "/" + framework.NFSNodeDaemonSet:      true,
		"CSIDriver " + names.CSIDriverName:                                            true,
	}
	for _, tc := range []struct {
		name           string
		disabledReason string
		degraded       string
		objects        map[string]bool
		want           bool
	}{
		{"installed, Disabled gone", "", "False", installed, true},
		{"installed, the driver's pods not yet Available", manila.ReasonDriverStarting, "False", installed, true},
		{"no share types", manila.ReasonNoShareTypes, "False", installed, false},
		{"degraded", "", "True", installed, false},
		{"degraded not yet written", "", "", installed, false},
		{"objects not yet created", "", "False", map[string]bool{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &watcher{disabledReason: tc.disabledReason, degraded: tc.degraded, objects: tc.objects}
			if got := w.converged(); got != tc.want {
				t.Errorf("converged() = %v, want %v", got, tc.want)
			}
		})
	}
}
