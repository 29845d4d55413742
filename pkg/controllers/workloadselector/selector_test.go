package workloadselector

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDiffers(t *testing.T) {
	ours := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "openstack-manila-csi", "component": "nodeplugin"}}
	cases := []struct {
		name     string
		existing *metav1.LabelSelector
		want     bool
	}{
		{"the same labels", &metav1.LabelSelector{MatchLabels: map[string]string{"component": "nodeplugin", "app": "openstack-manila-csi"}}, false},
		{"the same labels, empty expressions", &metav1.LabelSelector{MatchLabels: ours.MatchLabels, MatchExpressions: []metav1.LabelSelectorRequirement{}}, false},
		{"one label fewer", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "openstack-manila-csi"}}, true},
		{"another value", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "openstack-manila-csi", "component": "node"}}, true},
		{"an expression instead", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}, true},
		{"none", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Differs(tc.existing, ours); got != tc.want {
				t.Errorf("Differs = %v, want %v", got, tc.want)
			}
		})
	}
	if Differs(nil, &metav1.LabelSelector{}) {
		t.Error("two empty selectors differ")
	}
}

func TestDescribe(t *testing.T) {
	got := Describe(&metav1.LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "c", Operator: metav1.LabelSelectorOpIn, Values: []string{"x"}}}})
	if want := "{a=1, b=2, c in [x]}"; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
