package storageclasses

import (
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// The census is taken from what classplan.Desired and Plan really return, so a reworded skip
// reason shows up here as a wrong label rather than in production.
func TestCensus(t *testing.T) {
	nfs := manilatypes.ShareType{ID: "n", Name: "nfs"}
	ceph := manilatypes.ShareType{ID: "c", Name: "ceph", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}}
	dhss := manilatypes.ShareType{ID: "d", Name: "dhss", ExtraSpecs: map[string]string{"driver_handles_share_servers": "True"}}
	gold := manilatypes.ShareType{ID: "g", Name: "gold"}
	hashedGold := classplan.ClassNames(classplan.NamePrefix, []string{"gold", "Gold"}, map[string]string{"csi-manila-gold": "Gold"})["gold"]
	if hashedGold == "csi-manila-gold" {
		t.Fatalf("no hashed name for gold")
	}
	owned := func(name, id string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{classplan.OwnerLabel: classplan.OwnerLabelValue},
			Annotations: map[string]string{classplan.ShareTypeIDAnnotation: id, classplan.ShareTypeNameAnnotation: id}}}
	}
	foreign := func(name string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	for _, tc := range []struct {
		name     string
		state    operatorv1.StorageClassStateName
		types    []manilatypes.ShareType
		existing []*storagev1.StorageClass
		want     metrics.ClassCensus
	}{
		{name: "one class per type", state: operatorv1.ManagedStorageClass, types: []manilatypes.ShareType{nfs, gold},
			want: metrics.ClassCensus{Owned: 2, Skipped: map[string]int{}}},
		{name: "no NFS and no share network", state: operatorv1.ManagedStorageClass, types: []manilatypes.ShareType{nfs, ceph, dhss},
			want: metrics.ClassCensus{Owned: 1, Skipped: map[string]int{metrics.SkipNoNFS: 1, metrics.SkipShareNetwork: 1}}},
		{name: "a foreign class blocks a type", state: operatorv1.ManagedStorageClass, types: []manilatypes.ShareType{nfs, gold},
			existing: []*storagev1.StorageClass{foreign("csi-manila-nfs")},
			want:     metrics.ClassCensus{Owned: 1, Foreign: 1, Skipped: map[string]int{}}},
		{name: "a stale class", state: operatorv1.ManagedStorageClass, types: []manilatypes.ShareType{nfs},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n"), owned("csi-manila-old", "o")},
			want:     metrics.ClassCensus{Owned: 1, Stale: 1, Skipped: map[string]int{}}},
		{name: "both names of a type taken by others", state: operatorv1.ManagedStorageClass, types: []manilatypes.ShareType{gold},
			existing: []*storagev1.StorageClass{owned("csi-manila-gold", "old-gold"), owned(hashedGold, "other")},
			want:     metrics.ClassCensus{Stale: 2, Skipped: map[string]int{metrics.SkipNameCollision: 1}}},
		{name: "unmanaged still counts", state: operatorv1.UnmanagedStorageClass, types: []manilatypes.ShareType{nfs},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n")},
			want:     metrics.ClassCensus{Owned: 1, Skipped: map[string]int{}}},
		{name: "removed keeps no class", state: operatorv1.RemovedStorageClass, types: []manilatypes.ShareType{nfs, ceph},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n"), foreign("csi-manila-x")},
			want:     metrics.ClassCensus{Skipped: map[string]int{metrics.SkipNoNFS: 1}}},
	} {
		owners := map[string]classplan.Owner{}
		existing := map[string]*storagev1.StorageClass{}
		for _, sc := range tc.existing {
			existing[sc.Name] = sc
			if classplan.Owned(sc) {
				owners[sc.Name] = classplan.Owner{ID: sc.Annotations[classplan.ShareTypeIDAnnotation], Name: sc.Annotations[classplan.ShareTypeNameAnnotation]}
			}
		}
		wanted, skipped := classplan.Desired(tc.types, operatorconfig.StorageClasses{}, owners)
		listed := map[string]bool{}
		for _, st := range tc.types {
			listed[st.ID] = true
		}
		plan := classplan.Plan(classplan.Input{State: tc.state, Wanted: wanted, Existing: existing, Listed: listed})
		if got := census(tc.state, len(wanted), skipped, plan); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: census %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Every kind of skip the planner reports has a label of its own; only an unknown kind reads "other".
func TestSkipReasonLabels(t *testing.T) {
	for kind, want := range map[classplan.SkipKind]string{
		classplan.SkipNoNFS:          metrics.SkipNoNFS,
		classplan.SkipNoShareNetwork: metrics.SkipShareNetwork,
		classplan.SkipNameTaken:      metrics.SkipNameCollision,
		classplan.SkipNoZone:         metrics.SkipNoZone,
		classplan.SkipZoneName:       metrics.SkipZoneName,
		"SomethingNew":               metrics.SkipOther,
	} {
		if got := skipReason(classplan.Skipped{Kind: kind}); got != want {
			t.Errorf("skip kind %s: label %q, want %q", kind, got, want)
		}
	}
}

// A type whose NFS and CephFS classes are skipped for one reason (topology: no zone left) is one
// skipped share type.
func TestCensusCountsATypeOnce(t *testing.T) {
	both := manilatypes.ShareType{ID: "b", Name: "both", AvailabilityZones: []string{"gone"}, ExtraSpecs: map[string]string{"storage_protocol": "NFS CEPHFS"}}
	wanted, skipped := classplan.DesiredFor([]manilatypes.ShareType{both}, operatorconfig.StorageClasses{}, true, nil)
	wanted, zoneSkipped := classplan.Zonal(wanted, operatorconfig.Topology{Mode: operatorconfig.TopologyZonal}, []string{"az1"}, nil)
	skipped = append(skipped, zoneSkipped...)
	if len(skipped) != 2 || len(wanted) != 0 {
		t.Fatalf("wanted %v skipped %v: want both classes skipped", wanted, skipped)
	}
	got := census(operatorv1.ManagedStorageClass, 0, skipped, classplan.Result{})
	if want := (metrics.ClassCensus{Skipped: map[string]int{metrics.SkipNoZone: 1}}); !reflect.DeepEqual(got, want) {
		t.Errorf("census %+v, want %+v", got, want)
	}
}
