package predecessor

import (
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
)

// ours are some of this operator's condition types, as the operator lists them (conditiontypes).
var ours = conditiontypes.New([]string{"ManilaControllerDisabled", "ManilaControllerDegraded"},
	conditiontypes.Degraded("SecretSyncController", "ManagementState"),
	conditiontypes.Workloads("ManilaDriverControllerServiceController"))

// Shared lists only types of the generation's own.
func TestSharedAreWritten(t *testing.T) {
	for _, g := range All {
		for _, typ := range g.Shared {
			if !g.Writes(typ) {
				t.Errorf("%s: shared type %s is not among its types", g.Name, typ)
			}
		}
	}
}

// cs builds conditions from "Type=Status" pairs.
func cs(pairs ...string) []operatorv1.OperatorCondition {
	out := make([]operatorv1.OperatorCondition, len(pairs))
	for i, p := range pairs {
		typ, status, _ := strings.Cut(p, "=")
		out[i] = operatorv1.OperatorCondition{Type: typ, Status: operatorv1.ConditionStatus(status)}
	}
	return out
}

func TestStaleAfterTakeover(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       []string
	}{
		{"a cloud without Manila: 4.18's Disabled stands until ours is written",
			cs("CSIControllerDisabled=True", "StarterControllerDegraded=False"),
			[]string{"StarterControllerDegraded"}},
		{"ours Disabled written: 4.18's goes",
			cs("CSIControllerDisabled=True", "StarterControllerDegraded=False", "ManilaControllerDisabled=True"),
			[]string{"CSIControllerDisabled", "StarterControllerDegraded"}},
		{"4.18's Degraded goes at once, its Available waits for ours",
			cs("OpenStackManilaDriverControllerServiceControllerAvailable=True", "OpenStackManilaDriverNodeServiceControllerDegraded=True"),
			[]string{"OpenStackManilaDriverNodeServiceControllerDegraded"}},
		{"with ours Available, 4.18's Available goes too",
			cs("OpenStackManilaDriverControllerServiceControllerAvailable=True", "ManilaDriverControllerServiceControllerAvailable=True"),
			[]string{"OpenStackManilaDriverControllerServiceControllerAvailable"}},
		{"ours written but not Available: 4.18's Available stands",
			cs("OpenStackManilaDriverControllerServiceControllerAvailable=True", "ManilaDriverControllerServiceControllerAvailable=False"),
			[]string{"OpenStackManilaDriverControllerServiceControllerAvailable"}},
		{"4.18's Available=False stands until ours is written",
			cs("OpenStackManilaDriverControllerServiceControllerAvailable=False", "StarterControllerDegraded=True"),
			[]string{"StarterControllerDegraded"}},
		{"storage not Available and ours written: 4.18's Available=False goes",
			cs("OpenStackManilaDriverControllerServiceControllerAvailable=False", "StarterControllerDegraded=True", "ManilaDriverControllerServiceControllerAvailable=False"),
			[]string{"OpenStackManilaDriverControllerServiceControllerAvailable", "StarterControllerDegraded"}},
		{"4.17's types we share are ours; its own are stale",
			cs("SecretSyncDegraded=False", "ManilaControllerDisabled=True", "ManagementStateDegraded=False", "ResourceSyncControllerDegraded=False"),
			[]string{"SecretSyncDegraded", "ResourceSyncControllerDegraded"}},
		{"an admin's or another component's condition is nobody's to remove",
			cs("SomethingElseDegraded=True", "ManilaDriverControllerServiceControllerAvailable=True"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StaleAfterTakeover(tc.conditions, ours); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStaleAfterHandBack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		g          Generation
		want       []string
	}{
		{"4.18 wrote nothing yet: ours Available stays, the rest of ours goes",
			cs("ManilaDriverControllerServiceControllerAvailable=True", "SecretSyncControllerDegraded=False"), CSIOperator,
			[]string{"SecretSyncControllerDegraded"}},
		{"4.18 Available: every one of ours it does not write goes",
			cs("ManilaDriverControllerServiceControllerAvailable=True", "SecretSyncControllerDegraded=False", "ManagementStateDegraded=False",
				"OpenStackManilaDriverControllerServiceControllerAvailable=True"),
			CSIOperator, []string{"ManilaDriverControllerServiceControllerAvailable", "SecretSyncControllerDegraded"}},
		{"4.18 on a cloud without Manila (Disabled): ours goes",
			cs("ManilaDriverControllerServiceControllerAvailable=True", "ManilaControllerDisabled=True", "CSIControllerDisabled=True"),
			CSIOperator, []string{"ManilaDriverControllerServiceControllerAvailable", "ManilaControllerDisabled"}},
		{"4.18 failing its own checks: ours goes, storage shows the predecessor",
			cs("ManilaDriverControllerServiceControllerAvailable=True", "ManilaControllerDegraded=True", "StarterControllerDegraded=True"),
			CSIOperator, []string{"ManilaDriverControllerServiceControllerAvailable", "ManilaControllerDegraded"}},
		{"4.18 wrote nothing yet, ours not Available: ours stands, no view left to a guess",
			cs("ManilaDriverControllerServiceControllerAvailable=False", "SecretSyncControllerDegraded=False"), CSIOperator,
			[]string{"SecretSyncControllerDegraded"}},
		{"4.18 wrote its Available=False: ours goes",
			cs("ManilaDriverControllerServiceControllerAvailable=False", "OpenStackManilaDriverControllerServiceControllerAvailable=False"), CSIOperator,
			[]string{"ManilaDriverControllerServiceControllerAvailable"}},
		{"4.17 shares our controller's Available and Disabled: the rest of ours goes",
			cs("ManilaDriverControllerServiceControllerAvailable=True", "SecretSyncControllerDegraded=True", "ManilaControllerDisabled=True"),
			CSIDriverManilaOperator, []string{"SecretSyncControllerDegraded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StaleAfterHandBack(tc.conditions, ours, tc.g); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestByLease(t *testing.T) {
	if g, ok := ByLease("openstack-manila-csi-driver-operator-lock"); !ok || g.Lease != CSIOperator.Lease {
		t.Errorf("ByLease(4.18's lease) = %v, %v", g, ok)
	}
	if _, ok := ByLease("manila-csi-driver-operator-lock"); ok {
		t.Error("this operator's own lease is no predecessor's")
	}
}
