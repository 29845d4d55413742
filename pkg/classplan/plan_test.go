package classplan

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

func TestPlan(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	types := []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}}
	wanted, _ := Desired(types, operatorconfig.StorageClasses{}, nil)
	gold, silver := wanted[0].Class, wanted[1].Class
	goneType, _ := Desired([]manilatypes.ShareType{{ID: "9", Name: "bronze"}}, operatorconfig.StorageClasses{}, nil)
	bronze := goneType[0].Class

	edited := gold.DeepCopy()
	f := false
	edited.AllowVolumeExpansion = &f
	edited.Annotations["admin"] = "kept"
	changedParams := gold.DeepCopy()
	changedParams.Parameters["nfs-shareClient"] = "1.2.3.4"
	foreign := &storagev1.StorageClass{}
	foreign.Name = gold.Name
	markedBronze := bronze.DeepCopy()
	markedBronze.Annotations[StaleAnnotation] = "earlier"
	// An admin-made class with the owner label and no annotations at all.
	bare := &storagev1.StorageClass{}
	bare.Name, bare.Labels = "csi-manila-admin-made", bronze.Labels

	listed := map[string]bool{"1": true, "2": true}
	tests := []struct {
		name          string
		state         operatorv1.StorageClassStateName
		existing      []*storagev1.StorageClass
		absent        map[string]int
		pruneAfter    int
		want          map[string]ActionKind // class name -> action
		wantConflicts int
		wantStale     int
	}{
		{name: "nothing exists: create all", state: operatorv1.ManagedStorageClass,
			want: map[string]ActionKind{gold.Name: Create, silver.Name: Create}},
		{name: "all as wanted: no action", existing: []*storagev1.StorageClass{gold, silver}, want: map[string]ActionKind{}},
		{name: "edit of a mutable field is reverted", state: operatorv1.ManagedStorageClass,
			existing: []*storagev1.StorageClass{edited, silver}, want: map[string]ActionKind{gold.Name: Update}},
		{name: "immutable change recreates", existing: []*storagev1.StorageClass{changedParams, silver},
			want: map[string]ActionKind{gold.Name: Recreate}},
		{name: "Unmanaged creates missing, keeps edits", state: operatorv1.UnmanagedStorageClass,
			existing: []*storagev1.StorageClass{edited}, want: map[string]ActionKind{silver.Name: Create}},
		{name: "Removed deletes owned only", state: operatorv1.RemovedStorageClass,
			existing: []*storagev1.StorageClass{gold, bronze}, want: map[string]ActionKind{gold.Name: Delete, bronze.Name: Delete}},
		{name: "Removed leaves a foreign class", state: operatorv1.RemovedStorageClass,
			existing: []*storagev1.StorageClass{foreign}, want: map[string]ActionKind{}},
		{name: "foreign class in the way", existing: []*storagev1.StorageClass{foreign, silver},
			want: map[string]ActionKind{}, wantConflicts: 1},
		{name: "an owned class without annotations is marked stale", existing: []*storagev1.StorageClass{gold, silver, bare},
			want: map[string]ActionKind{bare.Name: Update}, wantStale: 1},
		{name: "stale class gets marked", existing: []*storagev1.StorageClass{gold, silver, bronze},
			want: map[string]ActionKind{bronze.Name: Update}, wantStale: 1},
		{name: "marked stale class is left until pruning", existing: []*storagev1.StorageClass{gold, silver, markedBronze},
			absent: map[string]int{bronze.Name: 10}, want: map[string]ActionKind{}, wantStale: 1},
		{name: "pruning waits for enough listings", existing: []*storagev1.StorageClass{gold, silver, markedBronze},
			absent: map[string]int{bronze.Name: 2}, pruneAfter: 3, want: map[string]ActionKind{}, wantStale: 1},
		{name: "pruning deletes after enough listings", existing: []*storagev1.StorageClass{gold, silver, markedBronze},
			absent: map[string]int{bronze.Name: 3}, pruneAfter: 3, want: map[string]ActionKind{bronze.Name: Delete}, wantStale: 1},
		{name: "Unmanaged neither marks nor prunes", state: operatorv1.UnmanagedStorageClass,
			existing: []*storagev1.StorageClass{gold, silver, bronze}, absent: map[string]int{bronze.Name: 9}, pruneAfter: 1,
			want: map[string]ActionKind{}, wantStale: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			existing := map[string]*storagev1.StorageClass{}
			for _, sc := range tt.existing {
				existing[sc.Name] = sc
			}
			r := Plan(Input{State: tt.state, Wanted: wanted, Existing: existing, Listed: listed, Absent: tt.absent, PruneAfter: tt.pruneAfter, Now: now})
			got := map[string]ActionKind{}
			for _, a := range r.Actions {
				got[a.Class.Name] = a.Kind
			}
			if len(got) != len(tt.want) {
				t.Errorf("actions %v, want %v", got, tt.want)
			}
			for name, kind := range tt.want {
				if got[name] != kind {
					t.Errorf("%s: %s, want %s", name, got[name], kind)
				}
			}
			if len(r.Conflicts) != tt.wantConflicts || len(r.Stale) != tt.wantStale {
				t.Errorf("conflicts %v stale %v", r.Conflicts, r.Stale)
			}
			for _, a := range r.Actions {
				if a.Kind == Update && a.Class.Name == gold.Name && a.Class.Annotations["admin"] != "kept" {
					t.Errorf("an update dropped a foreign annotation")
				}
			}
		})
	}
}
