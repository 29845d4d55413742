package conditiontypes

import (
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	s := New(Workloads("ManilaDriverNodeServiceController"), Degraded("ManagementState", "SecretSyncController"),
		[]string{"ManilaControllerDisabled", "ManagementStateDegraded"})
	for _, tc := range []struct {
		typ  string
		want bool
	}{
		{"ManilaDriverNodeServiceControllerAvailable", true},
		{"ManilaDriverNodeServiceControllerProgressing", true},
		{"ManilaDriverNodeServiceControllerDegraded", true},
		{"ManilaDriverNodeServiceControllerUpgradeable", false}, // a kind nobody listed
		{"SecretSyncControllerDegraded", true},
		{"SecretSyncDegraded", false}, // the 4.17 predecessor's: a prefix of ours is not ours
		{"ManilaControllerDisabled", true},
		{"ManilaControllerDisabledX", false},
		{"ManagementStateDegraded", true},
		{"", false},
	} {
		if got := s.Has(tc.typ); got != tc.want {
			t.Errorf("Has(%q) = %v, want %v", tc.typ, got, tc.want)
		}
	}
	want := []string{"ManagementStateDegraded", "ManilaControllerDisabled", "ManilaDriverNodeServiceControllerAvailable",
		"ManilaDriverNodeServiceControllerDegraded", "ManilaDriverNodeServiceControllerProgressing", "SecretSyncControllerDegraded"}
	if got := s.Types(); !slices.Equal(got, want) {
		t.Errorf("Types() = %v, want %v (sorted, each once)", got, want)
	}
}

func TestEach(t *testing.T) {
	got := Each([]string{"A", "B"}, "X", "Y")
	if want := []string{"AX", "AY", "BX", "BY"}; !slices.Equal(got, want) {
		t.Errorf("Each = %v, want %v", got, want)
	}
	if got := Each(nil, "X"); len(got) != 0 {
		t.Errorf("Each of no names = %v, want none", got)
	}
}
