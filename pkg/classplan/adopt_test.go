package classplan

import (
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kptr "k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// predecessorClass is a class as OpenShift's own Manila operator leaves it: 4.17 without the
// controller-expand secret and allowVolumeExpansion, 4.18 with both.
func predecessorClass(shareType string, v418 bool) *storagev1.StorageClass {
	params := map[string]string{"type": shareType}
	ops := []string{"provisioner", "node-stage", "node-publish"}
	var expand *bool
	if v418 {
		ops, expand = append(ops, "controller-expand"), kptr.To(true)
	}
	for _, op := range ops {
		params["csi.storage.k8s.io/"+op+"-secret-name"] = "csi-manila-secrets"
		params["csi.storage.k8s.io/"+op+"-secret-namespace"] = names.OperandNamespace
	}
	return &storagev1.StorageClass{ObjectMeta: objectMeta(PredecessorName(shareType)), Provisioner: names.CSIDriverName,
		Parameters: params, AllowVolumeExpansion: expand, ReclaimPolicy: kptr.To(corev1.PersistentVolumeReclaimDelete),
		VolumeBindingMode: kptr.To(storagev1.VolumeBindingImmediate)}
}

func TestAdoptions(t *testing.T) {
	types := []manilatypes.ShareType{{ID: "1", Name: "gold_nfs"}, {ID: "2", Name: "silver"}, {ID: "3", Name: "bronze"}}
	otherProvisioner := predecessorClass("silver", true)
	otherProvisioner.Provisioner = "example.com/nfs"
	otherSecret := predecessorClass("silver", true)
	otherSecret.Parameters["csi.storage.k8s.io/node-stage-secret-namespace"] = "default"
	unknownType := predecessorClass("zzz", true)
	copyOfGold := predecessorClass("gold_nfs", true)
	copyOfGold.Name = "a-copy-of-gold"
	ownedBronze := predecessorClass("bronze", true)
	ownedBronze.Labels = map[string]string{OwnerLabel: OwnerLabelValue}
	secondBronze := predecessorClass("bronze", false)
	secondBronze.Name = "csi-manila-bronze-2"
	unrelated := &storagev1.StorageClass{ObjectMeta: objectMeta("standard"), Provisioner: "kubernetes.io/cinder"}
	// A copy of the operator's own class (label and annotations along), its type's class gone.
	copyOfOwn := predecessorClass("bronze", true)
	copyOfOwn.Name = "bronze-copy"
	copyOfOwn.Labels = map[string]string{OwnerLabel: OwnerLabelValue}
	copyOfOwn.Annotations = map[string]string{ClassNameAnnotation: "csi-manila-bronze", ShareTypeIDAnnotation: "3"}

	tests := []struct {
		name        string
		all         []*storagev1.StorageClass
		owned       map[string]Owner
		wantAdopt   []string
		wantRefused map[string]string // class -> a word of the reason
	}{
		{name: "both predecessor shapes are adopted", all: []*storagev1.StorageClass{predecessorClass("gold_nfs", false), predecessorClass("silver", true)},
			wantAdopt: []string{"csi-manila-gold-nfs", "csi-manila-silver"}},
		{name: "another provisioner", all: []*storagev1.StorageClass{otherProvisioner}, wantRefused: map[string]string{"csi-manila-silver": "provisioner"}},
		{name: "foreign secret references", all: []*storagev1.StorageClass{otherSecret},
			wantRefused: map[string]string{"csi-manila-silver": "csi.storage.k8s.io/node-stage-secret-namespace"}},
		{name: "a type Manila does not list", all: []*storagev1.StorageClass{unknownType}, wantRefused: map[string]string{"csi-manila-zzz": "parameter type"}},
		{name: "one class per share type, the predecessor's name first",
			all:       []*storagev1.StorageClass{copyOfGold, predecessorClass("gold_nfs", false)},
			wantAdopt: []string{"csi-manila-gold-nfs"}, wantRefused: map[string]string{"a-copy-of-gold": "adopted in its place"}},
		{name: "a share type the operator serves already", all: []*storagev1.StorageClass{ownedBronze, secondBronze},
			owned: map[string]Owner{"csi-manila-bronze": {ID: "3", Name: "bronze"}}, wantRefused: map[string]string{"csi-manila-bronze-2": "already has the operator's"}},
		{name: "other drivers' classes are not reported", all: []*storagev1.StorageClass{unrelated}},
		{name: "a copy of the operator's class is never adopted", all: []*storagev1.StorageClass{copyOfOwn},
			wantRefused: map[string]string{"bronze-copy": "a copy of the operator's StorageClass csi-manila-bronze"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Adoptions(tc.all, types, tc.owned)
			var adopted []string
			for name := range got.Adopt {
				adopted = append(adopted, name)
			}
			slices.Sort(adopted)
			if !slices.Equal(adopted, tc.wantAdopt) {
				t.Errorf("adopted %v, want %v", adopted, tc.wantAdopt)
			}
			if len(got.Refused) != len(tc.wantRefused) {
				t.Errorf("refused %v, want %v", got.Refused, tc.wantRefused)
			}
			for name, word := range tc.wantRefused {
				if !strings.Contains(got.Refused[name], word) || !strings.Contains(got.Refused[name], name) {
					t.Errorf("refused %s: %q, want it to name the class and %q", name, got.Refused[name], word)
				}
			}
		})
	}
}

// Adopting: a 4.18 class is updated in place, a 4.17 class recreated (it lacks the controller-expand
// secret); both keep the admin's labels and annotations, and only one recreate happens per plan.
func TestPlanAdoption(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	types := []manilatypes.ShareType{{ID: "1", Name: "gold"}, {ID: "2", Name: "silver"}, {ID: "3", Name: "bronze"}}
	owners := map[string]Owner{}
	for _, st := range types {
		owners[PredecessorName(st.Name)] = Owner{ID: st.ID, Name: st.Name}
	}
	wanted, _ := Desired(types, operatorconfig.StorageClasses{}, owners)
	gold418, silver417, bronze417 := predecessorClass("gold", true), predecessorClass("silver", false), predecessorClass("bronze", false)
	for _, sc := range []*storagev1.StorageClass{gold418, bronze417} {
		sc.Annotations = map[string]string{DefaultClassAnnotation: "true", "admin.example.com/note": "mine"}
		sc.Labels = map[string]string{"team": "storage"}
	}
	existing := map[string]*storagev1.StorageClass{gold418.Name: gold418, silver417.Name: silver417, bronze417.Name: bronze417}
	adopt := map[string]bool{gold418.Name: true, silver417.Name: true, bronze417.Name: true}
	r := Plan(Input{State: operatorv1.ManagedStorageClass, Wanted: wanted, Existing: existing, Adopt: adopt, Listed: map[string]bool{"1": true, "2": true, "3": true}, Now: now})
	if len(r.Conflicts) > 0 {
		t.Errorf("conflicts %v", r.Conflicts)
	}
	if !slices.Equal(r.Deferred, []string{silver417.Name}) { // in name order, bronze's recreate comes first
		t.Errorf("deferred %v, want the second 4.17 class only", r.Deferred)
	}
	got := map[string]Action{}
	for _, a := range r.Actions {
		got[a.Class.Name] = a
	}
	if len(got) != 2 {
		t.Fatalf("actions %v, want an Update and a Recreate", r.Actions)
	}

	if a := got[gold418.Name]; a.Kind != Update || !a.Adopting {
		t.Errorf("4.18 class: %s (adopting %v), want an adopting Update", a.Kind, a.Adopting)
	}
	if a := got[bronze417.Name]; a.Kind != Recreate || !a.Adopting || a.Existing != bronze417 {
		t.Errorf("4.17 class: %s (adopting %v), want an adopting Recreate", a.Kind, a.Adopting)
	}
	for _, name := range []string{gold418.Name, bronze417.Name} {
		sc := got[name].Class
		if !Owned(sc) || sc.Annotations[ShareTypeIDAnnotation] == "" || sc.Annotations[AdoptedAnnotation] == "" {
			t.Errorf("%s: not marked as the operator's: %v %v", name, sc.Labels, sc.Annotations)
		}
		if sc.Annotations[DefaultClassAnnotation] != "true" || sc.Annotations["admin.example.com/note"] != "mine" || sc.Labels["team"] != "storage" {
			t.Errorf("%s lost the admin's metadata: %v %v", name, sc.Labels, sc.Annotations)
		}
	}
	if fields := ImmutableChanges(got[bronze417.Name].Class, bronze417); !slices.Contains(fields, "parameters.csi.storage.k8s.io/controller-expand-secret-name") || len(fields) != 2 {
		t.Errorf("ImmutableChanges = %v", fields)
	}

	unmanaged := Plan(Input{State: operatorv1.UnmanagedStorageClass, Wanted: wanted, Existing: existing, Adopt: adopt, Now: now})
	if len(unmanaged.Actions)+len(unmanaged.Conflicts) > 0 {
		t.Errorf("Unmanaged: %v, conflicts %v; want the classes left alone", unmanaged.Actions, unmanaged.Conflicts)
	}
}

// Removed deletes the classes the operator created and releases the ones it adopted, as they were.
func TestPlanRemovedReleasesAdopted(t *testing.T) {
	adopted := predecessorClass("gold", true)
	adopted.Labels = map[string]string{OwnerLabel: OwnerLabelValue, "team": "storage"}
	adopted.Annotations = map[string]string{AdoptedAnnotation: "2026-11-24T00:00:00Z", ShareTypeIDAnnotation: "1",
		ShareTypeNameAnnotation: "gold", DefaultClassAnnotation: "true"}
	created := predecessorClass("silver", true)
	created.Labels = map[string]string{OwnerLabel: OwnerLabelValue}
	r := Plan(Input{State: operatorv1.RemovedStorageClass, Existing: map[string]*storagev1.StorageClass{adopted.Name: adopted, created.Name: created}})
	got := map[string]Action{}
	for _, a := range r.Actions {
		got[a.Class.Name] = a
	}
	if got[created.Name].Kind != Delete {
		t.Errorf("created class: %s, want Delete", got[created.Name].Kind)
	}
	rel := got[adopted.Name]
	if rel.Kind != Release || Owned(rel.Class) || rel.Class.Annotations[AdoptedAnnotation] != "" || rel.Class.Annotations[ShareTypeIDAnnotation] != "" {
		t.Fatalf("adopted class: %s %v %v, want a Release without the operator's metadata", rel.Kind, rel.Class.Labels, rel.Class.Annotations)
	}
	if rel.Class.Labels["team"] != "storage" || rel.Class.Annotations[DefaultClassAnnotation] != "true" {
		t.Errorf("released class lost the admin's metadata: %v %v", rel.Class.Labels, rel.Class.Annotations)
	}
}

func objectMeta(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

// Every path that recreates a class (a share-type rename, an access-list change such as the
// machine network's, a topology change, a reclaim policy from the config) carries the admin's labels
// and annotations over; what the operator manages (the stale marker, its withdrawn default) does not.
func TestRecreateCarriesMetadata(t *testing.T) {
	types := []manilatypes.ShareType{{ID: "1", Name: "gold"}}
	owned := map[string]Owner{"csi-manila-gold": {ID: "1", Name: "gold"}}
	wanted, _ := Desired(types, operatorconfig.StorageClasses{}, owned)
	base := wanted[0].Class.DeepCopy()
	base.Labels["team"] = "storage"
	base.Annotations[DefaultClassAnnotation] = "true"
	base.Annotations[BetaDefaultClassAnnotation] = "true"
	base.Annotations["admin.example.com/note"] = "mine"
	base.Annotations[StaleAnnotation] = "earlier"
	for _, tc := range []struct {
		name   string
		change func(have *storagev1.StorageClass)
	}{
		{"share type renamed in Manila", func(h *storagev1.StorageClass) { h.Parameters["type"] = "old-name" }},
		{"access list (machine network)", func(h *storagev1.StorageClass) { h.Parameters["nfs-shareClient"] = "10.0.0.0/16" }},
		{"topology", func(h *storagev1.StorageClass) {
			h.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "k", Values: []string{"z"}}}}}
		}},
		{"reclaim policy", func(h *storagev1.StorageClass) { h.ReclaimPolicy = kptr.To(corev1.PersistentVolumeReclaimRetain) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			have := base.DeepCopy()
			tc.change(have)
			r := Plan(Input{State: operatorv1.ManagedStorageClass, Wanted: wanted, Existing: map[string]*storagev1.StorageClass{have.Name: have},
				Listed: map[string]bool{"1": true}})
			if len(r.Actions) != 1 || r.Actions[0].Kind != Recreate {
				t.Fatalf("actions %v, want one Recreate", r.Actions)
			}
			sc := r.Actions[0].Class
			if sc.Labels["team"] != "storage" || sc.Annotations[DefaultClassAnnotation] != "true" ||
				sc.Annotations[BetaDefaultClassAnnotation] != "true" || sc.Annotations["admin.example.com/note"] != "mine" {
				t.Errorf("the admin's metadata is lost: %v %v", sc.Labels, sc.Annotations)
			}
			if _, stale := sc.Annotations[StaleAnnotation]; stale || !Owned(sc) {
				t.Errorf("the operator's metadata is wrong: %v %v", sc.Labels, sc.Annotations)
			}
			if immutableDiffers(wanted[0].Class, sc) {
				t.Error("the recreated class does not have the wanted immutable fields")
			}
		})
	}
}
