package handback

import (
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
)

func TestWithout(t *testing.T) {
	conds := func(types ...string) []operatorv1.OperatorCondition {
		var out []operatorv1.OperatorCondition
		for _, ty := range types {
			out = append(out, operatorv1.OperatorCondition{Type: ty, Status: operatorv1.ConditionTrue})
		}
		return out
	}
	controllers := []string{"StorageClassController", "ManilaController", "ManilaDriver"}
	cases := []struct {
		name string
		in   []operatorv1.OperatorCondition
		want []string // nil: nothing to write
	}{
		{"none of ours", conds("CSIControllerDisabled", "OpenStackManilaDegraded"), nil},
		{"no conditions", nil, nil},
		{"ours among others", conds("StorageClassControllerDegraded", "CSIControllerDisabled", "ManilaControllerDisabled",
			"ManilaDriverStaticResourcesControllerDegraded"), []string{"CSIControllerDisabled"}},
		{"only ours", conds("ManilaControllerDegraded", "StorageClassControllerStale"), []string{}},
		{"a prefix inside a name does not count", conds("XStorageClassControllerDegraded"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Without(tc.in, controllers)
			if tc.want == nil {
				if got != nil {
					t.Fatalf("Without = %v, want no change", got)
				}
				return
			}
			if got == nil || len(got) != len(tc.want) {
				t.Fatalf("Without = %v, want types %v", got, tc.want)
			}
			for i, c := range got {
				if c.Type != tc.want[i] {
					t.Errorf("condition %d = %s, want %s", i, c.Type, tc.want[i])
				}
			}
		})
	}
	in := conds("ManilaControllerDegraded", "Other")
	Without(in, controllers)
	if in[0].Type != "ManilaControllerDegraded" || len(in) != 2 {
		t.Error("Without changed its input")
	}
}
