package storageclasses

import (
	"slices"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// OpenNFSAccess names only classes the operator owns or will write: a wanted name held by a foreign
// class, which the plan leaves alone, is not listed, whatever that class's access.
func TestOpenClassesLeaveForeignOut(t *testing.T) {
	wanted := func(name string, params map[string]string) classplan.Wanted {
		return classplan.Wanted{Class: &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{classplan.OwnerLabel: classplan.OwnerLabelValue}, Annotations: map[string]string{}},
			Provisioner: names.CSIDriverName, Parameters: params}}
	}
	open := map[string]string{"type": "default"}                                     // nfs-shareClient unset: 0.0.0.0/0
	closed := map[string]string{"type": "default", "nfs-shareClient": "10.0.0.0/16"} // limited
	foreign := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-default"}, Provisioner: "example.com/other"}
	owned := wanted("csi-manila-default", open).Class.DeepCopy()
	for _, tc := range []struct {
		name     string
		wanted   []classplan.Wanted
		existing map[string]*storagev1.StorageClass
		want     []string
	}{
		{"an open class to create", []classplan.Wanted{wanted("csi-manila-default", open)}, nil, []string{"csi-manila-default"}},
		{"an open class the operator owns", []classplan.Wanted{wanted("csi-manila-default", open)},
			map[string]*storagev1.StorageClass{owned.Name: owned}, []string{"csi-manila-default"}},
		{"the name is a foreign class's", []classplan.Wanted{wanted("csi-manila-default", open), wanted("csi-manila-gold", open)},
			map[string]*storagev1.StorageClass{foreign.Name: foreign}, []string{"csi-manila-gold"}},
		{"a limited class", []classplan.Wanted{wanted("csi-manila-default", closed)}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			existing := map[string]*storagev1.StorageClass{}
			for name, sc := range tc.existing {
				existing[name] = sc
			}
			plan := classplan.Plan(classplan.Input{State: operatorv1.ManagedStorageClass, Wanted: tc.wanted,
				Existing: existing, Adopt: map[string]bool{}, Listed: map[string]bool{}, Absent: map[string]int{}, Now: time.Now()})
			if got := openClasses(tc.wanted, plan.Conflicts); !slices.Equal(got, tc.want) {
				t.Errorf("open classes %v, want %v (conflicts %v)", got, tc.want, plan.Conflicts)
			}
		})
	}
}
