package predecessor

import (
	"slices"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
)

var ours = []string{"ManilaController", "SecretSyncController", "ManilaDriverControllerServiceController", "ManagementState"}

func conds(types ...string) []operatorv1.OperatorCondition {
	out := make([]operatorv1.OperatorCondition, len(types))
	for i, t := range types {
		out[i] = operatorv1.OperatorCondition{Type: t}
	}
	return out
}

func TestOwnedBy(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want bool
	}{
		{"SecretSyncDegraded", false}, // the 4.17 predecessor's, not SecretSyncController's
		{"SecretSyncControllerDegraded", true},
		{"ManilaControllerDisabled", true},
		{"ManilaControllerfoo", false},
		{"StorageClassControllerNotAdopted", false}, // not an owner listed here
		{"SecretSyncControllerNotAdopted", true},
		{"ManagementStateDegraded", true},
		{"OpenStackManilaDriverControllerServiceControllerAvailable", false},
	} {
		if got := OwnedBy(tc.typ, ours); got != tc.want {
			t.Errorf("OwnedBy(%s) = %v, want %v", tc.typ, got, tc.want)
		}
	}
}

func TestStaleAfterTakeover(t *testing.T) {
	for _, tc := range []struct {
		name       string
		conditions []operatorv1.OperatorCondition
		want       []string
	}{
		{"4.18's Degraded goes at once, its Available waits for ours",
			conds("OpenStackManilaDriverControllerServiceControllerAvailable", "OpenStackManilaDriverNodeServiceControllerDegraded", "CSIControllerDisabled"),
			[]string{"OpenStackManilaDriverNodeServiceControllerDegraded", "CSIControllerDisabled"}},
		{"with ours Available, 4.18's Available goes too",
			conds("OpenStackManilaDriverControllerServiceControllerAvailable", "ManilaDriverControllerServiceControllerAvailable"),
			[]string{"OpenStackManilaDriverControllerServiceControllerAvailable"}},
		{"4.17's types we share are ours; its own are stale",
			conds("SecretSyncDegraded", "ManilaControllerDisabled", "ManagementStateDegraded", "ResourceSyncControllerDegraded"),
			[]string{"SecretSyncDegraded", "ResourceSyncControllerDegraded"}},
		{"an admin's or another component's condition is nobody's to remove",
			conds("SomethingElseDegraded", "ManilaDriverControllerServiceControllerAvailable"), nil},
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
		{"4.18 not yet Available: ours stay",
			conds("ManilaDriverControllerServiceControllerAvailable", "SecretSyncControllerDegraded"), CSIOperator, nil},
		{"4.18 Available: every one of ours it does not write goes",
			conds("ManilaDriverControllerServiceControllerAvailable", "SecretSyncControllerDegraded", "ManagementStateDegraded",
				"OpenStackManilaDriverControllerServiceControllerAvailable"),
			CSIOperator, []string{"ManilaDriverControllerServiceControllerAvailable", "SecretSyncControllerDegraded"}},
		{"4.17 shares our controller's Available: the rest of ours goes",
			conds("ManilaDriverControllerServiceControllerAvailable", "SecretSyncControllerDegraded", "ManilaControllerDisabled"),
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
