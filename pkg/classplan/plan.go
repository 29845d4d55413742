package classplan

import (
	"maps"
	"reflect"
	"slices"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// ActionKind is one change to the cluster's StorageClasses.
type ActionKind string

const (
	Create ActionKind = "Create"
	// Update changes mutable fields (metadata, allowVolumeExpansion, mountOptions) of an owned class.
	Update ActionKind = "Update"
	// Recreate deletes and creates an owned class whose immutable fields (parameters, reclaimPolicy,
	// volumeBindingMode, allowedTopologies) must change.
	Recreate ActionKind = "Recreate"
	Delete   ActionKind = "Delete"
	// Release takes the operator's label and annotations off an adopted class (storageClassState
	// Removed): the class was there before the operator and stays.
	Release ActionKind = "Release"
)

// Action is a change and the class it applies: the wanted object for Create, Update and Recreate,
// the existing one for Delete. Existing is the class a Recreate replaces: its UID and resourceVersion
// are the delete's preconditions, so a class someone else recreated meanwhile is never deleted.
type Action struct {
	Kind     ActionKind
	Class    *storagev1.StorageClass
	Existing *storagev1.StorageClass
	// Adopting marks the Update or Recreate that takes over a class the operator did not create.
	Adopting bool
	// Why says, for an event, why a class is deleted when it is not for the usual reasons
	// (storageClassState Removed, pruning); empty otherwise.
	Why string
}

// Input is everything Plan decides from.
type Input struct {
	State  operatorv1.StorageClassStateName
	Wanted []Wanted
	// Existing holds every class named like a wanted one and every class the operator owns.
	Existing map[string]*storagev1.StorageClass
	// Adopt names the classes without the owner label that the operator takes over (Adoptions).
	Adopt map[string]bool
	// Listed holds the share-type IDs of the latest successful listing.
	Listed map[string]bool
	// Zones holds Manila's availability zones of that listing, nil when they were not listed.
	Zones map[string]bool
	// Absent counts, per owned class, the successful listings in a row that lacked its share type.
	Absent     map[string]int
	PruneAfter int
	Now        time.Time
	// CephFS is cephfs.enabled. While it is false the operator's CephFS classes are retired: deleted
	// unless a claim names them (Claims).
	CephFS bool
	// Claims maps a class name to a PersistentVolumeClaim ("namespace/name") whose
	// spec.storageClassName names it; only the operator's CephFS classes are looked up.
	Claims map[string]string
	// ClaimsUnknown is whether the claims are still being listed: a CephFS class being retired is then
	// left as it is, neither deleted nor reported retained, while every other class is planned as ever.
	ClaimsUnknown bool
}

// Result is the plan: actions, foreign classes in the way, and owned classes whose share type is gone.
type Result struct {
	Actions   []Action
	Conflicts []string
	Stale     []string
	// Deferred are adopted classes whose recreate waits for a later sync: one per sync, so that a plan
	// gone wrong can never recreate every class the cluster already had at once.
	Deferred []string
	// Retained are the operator's CephFS classes kept while cephfs.enabled is false because a claim
	// names them, sorted by class name.
	Retained []Retained
}

// Retained is a CephFS class kept for a claim that names it.
type Retained struct {
	Class string
	// Claim is one PersistentVolumeClaim naming the class, "namespace/name".
	Claim string
}

// Retiring reports whether a class is one of the operator's CephFS classes while cephfs.enabled
// (cephFS) is false: such a class is deleted once no claim names it, and is never stale.
func Retiring(sc *storagev1.StorageClass, cephFS bool) bool {
	return !cephFS && Owned(sc) && ProtocolOf(sc) == ProtocolCephFS
}

// Plan compares wanted and existing classes under the storageClassState policy:
// Managed reconciles (reverting edits) and adopts the classes in in.Adopt, Unmanaged only creates
// missing classes, Removed deletes the classes the operator created, releases the ones it adopted and
// creates none. A class without the owner label is never touched unless it is adopted. While
// cephfs.enabled is false, Managed deletes each CephFS class of the operator that no claim names and
// keeps (Retained) the ones claims name (neither while the claims are being listed); Unmanaged
// deletes none of them.
func Plan(in Input) Result {
	var r Result
	if in.State == operatorv1.RemovedStorageClass {
		for _, name := range slices.Sorted(maps.Keys(in.Existing)) {
			switch sc := in.Existing[name]; {
			case !Owned(sc):
			case sc.Annotations[AdoptedAnnotation] != "":
				r.Actions = append(r.Actions, Action{Kind: Release, Class: released(sc)})
			default:
				r.Actions = append(r.Actions, Action{Kind: Delete, Class: sc})
			}
		}
		return r
	}
	managed := in.State != operatorv1.UnmanagedStorageClass
	wantedNames := map[string]bool{}
	adoptionRecreated := false
	for _, w := range in.Wanted {
		wantedNames[w.Class.Name] = true
		existing, ok := in.Existing[w.Class.Name]
		want := w.Class
		adopting := ok && !Owned(existing) && in.Adopt[w.Class.Name]
		if adopting {
			want = want.DeepCopy()
			want.Annotations[AdoptedAnnotation] = in.Now.UTC().Format(time.RFC3339)
		}
		switch {
		case !ok:
			r.Actions = append(r.Actions, Action{Kind: Create, Class: want})
		case !Owned(existing) && !adopting:
			r.Conflicts = append(r.Conflicts, w.Class.Name)
		case !managed:
		case immutableDiffers(want, existing) && adopting && adoptionRecreated:
			r.Deferred = append(r.Deferred, w.Class.Name)
		case immutableDiffers(want, existing):
			adoptionRecreated = adoptionRecreated || adopting
			r.Actions = append(r.Actions, Action{Kind: Recreate, Class: recreated(existing, want), Existing: existing, Adopting: adopting})
		default:
			if updated, changed := merge(existing, want); changed {
				r.Actions = append(r.Actions, Action{Kind: Update, Class: updated, Existing: existing, Adopting: adopting})
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(in.Existing)) {
		sc := in.Existing[name]
		if wantedNames[name] || !Retiring(sc, in.CephFS) {
			continue
		}
		switch claim := in.Claims[name]; {
		case in.ClaimsUnknown:
		case claim != "":
			r.Retained = append(r.Retained, Retained{Class: name, Claim: claim})
		case managed:
			r.Actions = append(r.Actions, Action{Kind: Delete, Class: sc, Why: "cephfs.enabled is false and no PersistentVolumeClaim names it"})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(in.Existing)) {
		sc := in.Existing[name]
		if wantedNames[name] || !Owned(sc) || Retiring(sc, in.CephFS) || !Gone(sc, in.Listed, in.Zones) {
			continue
		}
		r.Stale = append(r.Stale, name)
		if !managed {
			continue
		}
		if in.PruneAfter > 0 && in.Absent[name] >= in.PruneAfter {
			r.Actions = append(r.Actions, Action{Kind: Delete, Class: sc})
		} else if _, marked := sc.Annotations[StaleAnnotation]; !marked {
			marked := sc.DeepCopy()
			if marked.Annotations == nil {
				marked.Annotations = map[string]string{}
			}
			marked.Annotations[StaleAnnotation] = in.Now.UTC().Format(time.RFC3339)
			r.Actions = append(r.Actions, Action{Kind: Update, Class: marked})
		}
	}
	return r
}

// Gone reports whether an owned class that no wanted class stands for is stale: its share type is
// not in the listing, none of the Manila zones it is limited to is listed any more, or it is a
// per-zone class (its zone gone, or per-zone classes or topology turned off).
func Gone(sc *storagev1.StorageClass, listed, zones map[string]bool) bool {
	return !listed[sc.Annotations[ShareTypeIDAnnotation]] || zonesGone(sc, zones) || PerZone(sc)
}

func immutableDiffers(want, have *storagev1.StorageClass) bool {
	return want.Provisioner != have.Provisioner ||
		!equality.Semantic.DeepEqual(want.Parameters, have.Parameters) ||
		!reflect.DeepEqual(want.ReclaimPolicy, have.ReclaimPolicy) ||
		!reflect.DeepEqual(want.VolumeBindingMode, have.VolumeBindingMode) ||
		!equality.Semantic.DeepEqual(want.AllowedTopologies, have.AllowedTopologies)
}

// recreated is the wanted class carrying the existing class's labels and annotations as an update
// would (merge): what an admin set, the default-class annotation above all, survives a recreate.
func recreated(have, want *storagev1.StorageClass) *storagev1.StorageClass {
	merged, _ := merge(have, want)
	out := want.DeepCopy()
	out.Labels, out.Annotations = merged.Labels, merged.Annotations
	return out
}

// released is an adopted class without the operator's label and annotations, as it was found.
func released(sc *storagev1.StorageClass) *storagev1.StorageClass {
	out := sc.DeepCopy()
	delete(out.Labels, OwnerLabel)
	for _, k := range []string{ShareTypeNameAnnotation, ShareTypeIDAnnotation, ClassNameAnnotation, StaleAnnotation, AdoptedAnnotation, DefaultManagedAnnotation} {
		delete(out.Annotations, k)
	}
	return out
}

// merge returns existing with the wanted mutable fields and the operator's metadata; other
// labels and annotations stay.
func merge(have, want *storagev1.StorageClass) (*storagev1.StorageClass, bool) {
	out := have.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	for k, v := range want.Labels {
		out.Labels[k] = v
	}
	for k, v := range want.Annotations {
		out.Annotations[k] = v
	}
	if _, ok := want.Annotations[DefaultClassAnnotation]; !ok && have.Annotations[DefaultManagedAnnotation] == "true" {
		delete(out.Annotations, DefaultClassAnnotation) // the operator's own default, withdrawn; an admin's stays
	}
	if _, ok := want.Annotations[DefaultManagedAnnotation]; !ok {
		delete(out.Annotations, DefaultManagedAnnotation)
	}
	delete(out.Annotations, StaleAnnotation)
	out.AllowVolumeExpansion = want.AllowVolumeExpansion
	if len(want.MountOptions) > 0 || len(have.MountOptions) > 0 { // nil and [] are the same: no update
		out.MountOptions = want.MountOptions
	}
	return out, !equality.Semantic.DeepEqual(out, have)
}
