package classplan

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// A share type renamed in Manila keeps its class, found by the share type's ID: same class name,
// `type` the new name (a Recreate, since parameters are immutable), never stale, never a second class.
func TestRename(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	type rename struct{ from, to string }
	tests := []struct {
		name    string
		state   operatorv1.StorageClassStateName
		before  []manilatypes.ShareType // the listing the existing classes were made from
		after   []manilatypes.ShareType // the listing after the change in Manila
		mark    string                  // an existing class already marked stale
		want    map[string]ActionKind   // class name -> action
		renamed map[string]rename       // class name -> the rename Renamed reports
		types   map[string]string       // class name -> its `type` after the plan
		stale   []string
	}{
		{name: "renamed: recreated under its name with the new type",
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}},
			after:  []manilatypes.ShareType{{ID: "1", Name: "platinum"}, {ID: "2", Name: "silver"}},
			want:   map[string]ActionKind{"csi-manila-gold": Recreate}, renamed: map[string]rename{"csi-manila-gold": {"gold", "platinum"}},
			types: map[string]string{"csi-manila-gold": "platinum", "csi-manila-silver": "silver"}},
		{name: "only the case changes",
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}},
			after:  []manilatypes.ShareType{{ID: "1", Name: "GOLD"}},
			want:   map[string]ActionKind{"csi-manila-gold": Recreate}, renamed: map[string]rename{"csi-manila-gold": {"gold", "GOLD"}},
			types: map[string]string{"csi-manila-gold": "GOLD"}},
		{name: "renamed to the name of a vanished type: that type's class stays its own, stale",
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "9", Name: "bronze"}},
			after:  []manilatypes.ShareType{{ID: "1", Name: "bronze"}},
			mark:   "csi-manila-bronze",
			want:   map[string]ActionKind{"csi-manila-gold": Recreate}, renamed: map[string]rename{"csi-manila-gold": {"gold", "bronze"}},
			types: map[string]string{"csi-manila-gold": "bronze", "csi-manila-bronze": "bronze"}, stale: []string{"csi-manila-bronze"}},
		{name: "two types swap names: each class follows its type",
			before:  []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}},
			after:   []manilatypes.ShareType{{ID: "1", Name: "silver"}, {ID: "2", Name: "gold"}},
			want:    map[string]ActionKind{"csi-manila-gold": Recreate, "csi-manila-silver": Recreate},
			renamed: map[string]rename{"csi-manila-gold": {"gold", "silver"}, "csi-manila-silver": {"silver", "gold"}},
			types:   map[string]string{"csi-manila-gold": "silver", "csi-manila-silver": "gold"}},
		{name: "renamed while marked stale: back, unmarked",
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}},
			after:  []manilatypes.ShareType{{ID: "1", Name: "platinum"}},
			mark:   "csi-manila-gold",
			want:   map[string]ActionKind{"csi-manila-gold": Recreate}, renamed: map[string]rename{"csi-manila-gold": {"gold", "platinum"}},
			types: map[string]string{"csi-manila-gold": "platinum"}},
		{name: "Unmanaged: left as it is, and not stale", state: operatorv1.UnmanagedStorageClass,
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}},
			after:  []manilatypes.ShareType{{ID: "1", Name: "platinum"}},
			want:   map[string]ActionKind{}, types: map[string]string{"csi-manila-gold": "gold"}},
		{name: "not a rename: a new type under a deleted type's name gets its own class",
			before: []manilatypes.ShareType{{ID: "1", Name: "gold"}},
			after:  []manilatypes.ShareType{{ID: "3", Name: "gold"}},
			want:   map[string]ActionKind{"csi-manila-gold": Update, hashedName(NamePrefix, "gold"): Create},
			types:  map[string]string{"csi-manila-gold": "gold", hashedName(NamePrefix, "gold"): "gold"}, stale: []string{"csi-manila-gold"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			made, _ := Desired(tt.before, operatorconfig.StorageClasses{}, nil)
			existing := map[string]*storagev1.StorageClass{}
			owners := map[string]Owner{}
			for _, w := range made {
				sc := w.Class.DeepCopy()
				if sc.Name == tt.mark {
					sc.Annotations[StaleAnnotation] = "earlier"
				}
				existing[sc.Name] = sc
				owners[sc.Name] = Owner{ID: sc.Annotations[ShareTypeIDAnnotation], Name: sc.Annotations[ShareTypeNameAnnotation]}
			}
			wanted, skipped := Desired(tt.after, operatorconfig.StorageClasses{}, owners)
			if len(skipped) != 0 {
				t.Fatalf("skipped %+v", skipped)
			}
			listed := map[string]bool{}
			for _, st := range tt.after {
				listed[st.ID] = true
			}
			r := Plan(Input{State: tt.state, Wanted: wanted, Existing: existing, Listed: listed, Now: now})

			classes := map[string]*storagev1.StorageClass{}
			for name, sc := range existing {
				classes[name] = sc
			}
			got := map[string]ActionKind{}
			for _, a := range r.Actions {
				got[a.Class.Name] = a.Kind
				if a.Kind != Delete {
					classes[a.Class.Name] = a.Class
				}
				from, to, ok := Renamed(a)
				if want, renamed := tt.renamed[a.Class.Name]; ok != renamed || from != want.from || to != want.to {
					t.Errorf("Renamed(%s %s) = %q, %q, %v; want %+v", a.Kind, a.Class.Name, from, to, ok, want)
				}
				if a.Kind == Recreate {
					if _, marked := a.Class.Annotations[StaleAnnotation]; marked {
						t.Errorf("%s recreated with the stale mark", a.Class.Name)
					}
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("actions %v, want %v", got, tt.want)
			}
			for name, kind := range tt.want {
				if got[name] != kind {
					t.Errorf("%s: %s, want %s", name, got[name], kind)
				}
			}
			if len(classes) != len(tt.types) {
				t.Errorf("%d classes after the plan, want %d: %v", len(classes), len(tt.types), tt.types)
			}
			for name, typ := range tt.types {
				if sc := classes[name]; sc == nil || sc.Parameters[parameterType] != typ {
					t.Errorf("class %s: %v, want type %q", name, sc, typ)
				}
			}
			if len(r.Stale) != len(tt.stale) || (len(tt.stale) > 0 && r.Stale[0] != tt.stale[0]) {
				t.Errorf("stale %v, want %v", r.Stale, tt.stale)
			}
		})
	}
}

func TestRenamedOnlyForARecreateOfTheSameID(t *testing.T) {
	made, _ := Desired([]manilatypes.ShareType{{ID: "1", Name: "gold"}}, operatorconfig.StorageClasses{}, nil)
	old := made[0].Class
	renamed := old.DeepCopy()
	renamed.Annotations[ShareTypeNameAnnotation], renamed.Parameters[parameterType] = "platinum", "platinum"
	otherID := renamed.DeepCopy()
	otherID.Annotations[ShareTypeIDAnnotation] = "2"
	noID := renamed.DeepCopy()
	delete(noID.Annotations, ShareTypeIDAnnotation)
	bare := old.DeepCopy()
	bare.Annotations = nil
	for _, tc := range []struct {
		name string
		a    Action
		want bool
	}{
		{"recreate after a rename", Action{Kind: Recreate, Class: renamed, Existing: old}, true},
		{"recreate of another change", Action{Kind: Recreate, Class: old, Existing: old}, false},
		{"another share type's class", Action{Kind: Recreate, Class: otherID, Existing: old}, false},
		{"no ID annotation", Action{Kind: Recreate, Class: noID, Existing: old}, false},
		{"an existing class without annotations", Action{Kind: Recreate, Class: renamed, Existing: bare}, false},
		{"an update", Action{Kind: Update, Class: renamed, Existing: old}, false},
		{"a create", Action{Kind: Create, Class: renamed}, false},
	} {
		if _, _, ok := Renamed(tc.a); ok != tc.want {
			t.Errorf("%s: Renamed = %v, want %v", tc.name, ok, tc.want)
		}
	}
}
