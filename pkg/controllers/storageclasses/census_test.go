package storageclasses

import (
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/sharetypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/storageclass"
)

// The census is taken from what storageclass.Desired and Plan really return, so a reworded skip
// reason shows up here as a wrong label rather than in production.
func TestCensus(t *testing.T) {
	nfs := sharetypes.ShareType{ID: "n", Name: "nfs"}
	ceph := sharetypes.ShareType{ID: "c", Name: "ceph", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}}
	dhss := sharetypes.ShareType{ID: "d", Name: "dhss", ExtraSpecs: map[string]string{"driver_handles_share_servers": "True"}}
	gold := sharetypes.ShareType{ID: "g", Name: "gold"}
	hashedGold := storageclass.ClassNames([]string{"gold", "Gold"}, map[string]string{"csi-manila-gold": "Gold"})["gold"]
	if hashedGold == "csi-manila-gold" {
		t.Fatalf("no hashed name for gold")
	}
	owned := func(name, id string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels:      map[string]string{storageclass.OwnerLabel: storageclass.OwnerLabelValue},
			Annotations: map[string]string{storageclass.ShareTypeIDAnnotation: id, storageclass.ShareTypeNameAnnotation: id}}}
	}
	foreign := func(name string) *storagev1.StorageClass {
		return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	for _, tc := range []struct {
		name     string
		state    operatorv1.StorageClassStateName
		types    []sharetypes.ShareType
		existing []*storagev1.StorageClass
		want     metrics.ClassCensus
	}{
		{name: "one class per type", state: operatorv1.ManagedStorageClass, types: []sharetypes.ShareType{nfs, gold},
			want: metrics.ClassCensus{Owned: 2, Skipped: map[string]int{}}},
		{name: "no NFS and no share network", state: operatorv1.ManagedStorageClass, types: []sharetypes.ShareType{nfs, ceph, dhss},
			want: metrics.ClassCensus{Owned: 1, Skipped: map[string]int{metrics.SkipNoNFS: 1, metrics.SkipShareNetwork: 1}}},
		{name: "a foreign class blocks a type", state: operatorv1.ManagedStorageClass, types: []sharetypes.ShareType{nfs, gold},
			existing: []*storagev1.StorageClass{foreign("csi-manila-nfs")},
			want:     metrics.ClassCensus{Owned: 1, Foreign: 1, Skipped: map[string]int{}}},
		{name: "a stale class", state: operatorv1.ManagedStorageClass, types: []sharetypes.ShareType{nfs},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n"), owned("csi-manila-old", "o")},
			want:     metrics.ClassCensus{Owned: 1, Stale: 1, Skipped: map[string]int{}}},
		{name: "both names of a type taken by others", state: operatorv1.ManagedStorageClass, types: []sharetypes.ShareType{gold},
			existing: []*storagev1.StorageClass{owned("csi-manila-gold", "old-gold"), owned(hashedGold, "other")},
			want:     metrics.ClassCensus{Stale: 2, Skipped: map[string]int{metrics.SkipNameCollision: 1}}},
		{name: "unmanaged still counts", state: operatorv1.UnmanagedStorageClass, types: []sharetypes.ShareType{nfs},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n")},
			want:     metrics.ClassCensus{Owned: 1, Skipped: map[string]int{}}},
		{name: "removed keeps no class", state: operatorv1.RemovedStorageClass, types: []sharetypes.ShareType{nfs, ceph},
			existing: []*storagev1.StorageClass{owned("csi-manila-nfs", "n"), foreign("csi-manila-x")},
			want:     metrics.ClassCensus{Skipped: map[string]int{metrics.SkipNoNFS: 1}}},
	} {
		owners := map[string]storageclass.Owner{}
		existing := map[string]*storagev1.StorageClass{}
		for _, sc := range tc.existing {
			existing[sc.Name] = sc
			if storageclass.Owned(sc) {
				owners[sc.Name] = storageclass.Owner{ID: sc.Annotations[storageclass.ShareTypeIDAnnotation], Name: sc.Annotations[storageclass.ShareTypeNameAnnotation]}
			}
		}
		wanted, skipped := storageclass.Desired(tc.types, operatorconfig.StorageClasses{}, owners)
		listed := map[string]bool{}
		for _, st := range tc.types {
			listed[st.ID] = true
		}
		plan := storageclass.Plan(storageclass.Input{State: tc.state, Wanted: wanted, Existing: existing, Listed: listed})
		if got := census(tc.state, len(wanted), skipped, plan); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: census %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Every kind of skip the planner reports has a label of its own; only an unknown kind reads "other".
func TestSkipReasonLabels(t *testing.T) {
	for kind, want := range map[storageclass.SkipKind]string{
		storageclass.SkipNoNFS:          metrics.SkipNoNFS,
		storageclass.SkipNoShareNetwork: metrics.SkipShareNetwork,
		storageclass.SkipNameTaken:      metrics.SkipNameCollision,
		storageclass.SkipNoZone:         metrics.SkipNoZone,
		storageclass.SkipZoneName:       metrics.SkipZoneName,
		"SomethingNew":                  metrics.SkipOther,
	} {
		if got := skipReason(storageclass.Skipped{Kind: kind}); got != want {
			t.Errorf("skip kind %s: label %q, want %q", kind, got, want)
		}
	}
}
