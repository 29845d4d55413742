package classplan

import (
	"strings"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func class(name string, owned bool, annotations map[string]string) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	if owned {
		sc.Labels = map[string]string{OwnerLabel: OwnerLabelValue}
	}
	return sc
}

func TestApplyDefault(t *testing.T) {
	types := []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}}
	const gold = "csi-manila-gold"
	for _, tc := range []struct {
		name, defaultType string
		cluster           []*storagev1.StorageClass
		want              string // the gold class's is-default-class value, "-" for none
		wantManaged       bool
		wantNotice        string
	}{
		{name: "no default configured", want: "-"},
		{name: "no other default: ours is the default", defaultType: "gold", want: "true", wantManaged: true},
		{name: "a foreign default exists: never a second one", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class("standard", false, map[string]string{DefaultClassAnnotation: "true"})},
			want:    "false", wantManaged: true, wantNotice: "StorageClass standard is already the cluster's default"},
		{name: "a default by the beta annotation: never a second one", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class("standard", false, map[string]string{BetaDefaultClassAnnotation: "true"})},
			want:    "false", wantManaged: true, wantNotice: "StorageClass standard is already the cluster's default"},
		{name: "the admin's value on our class is kept", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class(gold, true, map[string]string{DefaultClassAnnotation: "false"})}, want: "false"},
		{name: "an admin's empty value is kept too", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class(gold, true, map[string]string{DefaultClassAnnotation: ""})}, want: ""},
		{name: "our own former default is withdrawn, not an obstacle", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class("csi-manila-silver", true, map[string]string{DefaultClassAnnotation: "true", DefaultManagedAnnotation: "true"})},
			want:    "true", wantManaged: true},
		{name: "the value we wrote is ours to change", defaultType: "gold",
			cluster: []*storagev1.StorageClass{class(gold, true, map[string]string{DefaultClassAnnotation: "false", DefaultManagedAnnotation: "true"})},
			want:    "true", wantManaged: true},
		{name: "a missing share type is said", defaultType: "bronze", want: "-", wantNotice: `defaultShareType "bronze" names no share type`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wanted, _ := Desired(types, operatorconfig.StorageClasses{DefaultShareType: tc.defaultType}, nil)
			notices := ApplyDefault(wanted, tc.cluster, tc.defaultType)
			var got *storagev1.StorageClass
			for _, w := range wanted {
				if w.Class.Name == gold {
					got = w.Class
				}
			}
			value, ok := got.Annotations[DefaultClassAnnotation]
			if !ok {
				value = "-"
			}
			if value != tc.want || (got.Annotations[DefaultManagedAnnotation] == "true") != tc.wantManaged {
				t.Errorf("annotations %v, want is-default-class %q managed %v", got.Annotations, tc.want, tc.wantManaged)
			}
			if (tc.wantNotice == "") != (len(notices) == 0) || (tc.wantNotice != "" && !strings.Contains(strings.Join(notices, ";"), tc.wantNotice)) {
				t.Errorf("notices %q, want %q", notices, tc.wantNotice)
			}
		})
	}
}

// merge keeps an admin's default annotation and withdraws only the operator's own.
func TestMergeDefaultAnnotation(t *testing.T) {
	want := class("csi-manila-gold", true, map[string]string{ShareTypeNameAnnotation: "gold"})
	admin := class("csi-manila-gold", true, map[string]string{DefaultClassAnnotation: "true"})
	if out, _ := merge(admin, want); out.Annotations[DefaultClassAnnotation] != "true" {
		t.Errorf("an admin's default annotation was stripped: %v", out.Annotations)
	}
	ours := class("csi-manila-gold", true, map[string]string{DefaultClassAnnotation: "true", DefaultManagedAnnotation: "true"})
	out, changed := merge(ours, want)
	if _, ok := out.Annotations[DefaultClassAnnotation]; ok || !changed || out.Annotations[DefaultManagedAnnotation] != "" {
		t.Errorf("the operator's withdrawn default stayed: %v", out.Annotations)
	}
}
