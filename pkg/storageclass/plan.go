package storageclass

import (
	"reflect"
	"sort"
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
)

// Action is a change and the class it applies: the wanted object for Create, Update and Recreate,
// the existing one for Delete. Existing is the class a Recreate replaces: its UID and resourceVersion
// are the delete's preconditions, so a class someone else recreated meanwhile is never deleted.
type Action struct {
	Kind     ActionKind
	Class    *storagev1.StorageClass
	Existing *storagev1.StorageClass
}

// Input is everything Plan decides from.
type Input struct {
	State  operatorv1.StorageClassStateName
	Wanted []Wanted
	// Existing holds every class named like a wanted one and every class the operator owns.
	Existing map[string]*storagev1.StorageClass
	// Listed holds the share-type IDs of the latest successful listing.
	Listed map[string]bool
	// Zones holds Manila's availability zones of that listing, nil when they were not listed.
	Zones map[string]bool
	// Absent counts, per owned class, the successful listings in a row that lacked its share type.
	Absent     map[string]int
	PruneAfter int
	Now        time.Time
}

// Result is the plan: actions, foreign classes in the way, and owned classes whose share type is gone.
type Result struct {
	Actions   []Action
	Conflicts []string
	Stale     []string
}

// Plan compares wanted and existing classes under the storageClassState policy:
// Managed reconciles (reverting edits), Unmanaged only creates missing classes, Removed deletes the
// operator's classes and creates none. A class without the owner label is never touched.
func Plan(in Input) Result {
	var r Result
	if in.State == operatorv1.RemovedStorageClass {
		for _, name := range sortedKeys(in.Existing) {
			if sc := in.Existing[name]; Owned(sc) {
				r.Actions = append(r.Actions, Action{Kind: Delete, Class: sc})
			}
		}
		return r
	}
	managed := in.State != operatorv1.UnmanagedStorageClass
	wantedNames := map[string]bool{}
	for _, w := range in.Wanted {
		wantedNames[w.Class.Name] = true
		existing, ok := in.Existing[w.Class.Name]
		switch {
		case !ok:
			r.Actions = append(r.Actions, Action{Kind: Create, Class: w.Class})
		case !Owned(existing):
			r.Conflicts = append(r.Conflicts, w.Class.Name)
		case !managed:
		case immutableDiffers(w.Class, existing):
			r.Actions = append(r.Actions, Action{Kind: Recreate, Class: w.Class, Existing: existing})
		default:
			if updated, changed := merge(existing, w.Class); changed {
				r.Actions = append(r.Actions, Action{Kind: Update, Class: updated})
			}
		}
	}
	for _, name := range sortedKeys(in.Existing) {
		sc := in.Existing[name]
		if wantedNames[name] || !Owned(sc) || !Gone(sc, in.Listed, in.Zones) {
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

func sortedKeys(m map[string]*storagev1.StorageClass) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
