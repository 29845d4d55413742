package classplan

import (
	"fmt"
	"sort"

	storagev1 "k8s.io/api/storage/v1"
)

// DefaultManagedAnnotation marks a class whose is-default-class value the operator wrote, so it may
// change or withdraw it; a value without it is the admin's and is kept, as library-go's
// csistorageclasscontroller.SetDefaultStorageClass keeps it.
const DefaultManagedAnnotation = "manila.csi.openstack.org/default-class-managed"

// BetaDefaultClassAnnotation is the pre-GA default-class annotation, which Kubernetes still honours.
const BetaDefaultClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"

// IsDefault reports whether Kubernetes takes the class as a default: either annotation "true".
func IsDefault(sc *storagev1.StorageClass) bool {
	return sc.Annotations[DefaultClassAnnotation] == "true" || sc.Annotations[BetaDefaultClassAnnotation] == "true"
}

// ApplyDefault settles the default-class annotation of the wanted classes against the cluster's
// classes (all), with library-go's rules: the admin's value on a class is kept whatever it is, and
// the operator never makes a second default: when another class is the default, the config's
// default class gets "false" until that changes. Classes that the operator made default and that are
// no longer meant to be lose the annotation (in merge). It returns what an admin should be told.
func ApplyDefault(wanted []Wanted, all []*storagev1.StorageClass, defaultShareType string) []string {
	if defaultShareType == "" {
		return nil
	}
	var target *storagev1.StorageClass
	for _, w := range wanted {
		if w.Class.Annotations[DefaultClassAnnotation] == "true" {
			target = w.Class
		}
	}
	if target == nil {
		return []string{fmt.Sprintf("storageClasses.defaultShareType %q names no share type that gets a StorageClass, so no class is made the default", defaultShareType)}
	}
	var others []string
	var same *storagev1.StorageClass
	for _, sc := range all {
		switch {
		case sc.Name == target.Name:
			same = sc
		case !IsDefault(sc):
		case Owned(sc) && sc.Annotations[DefaultManagedAnnotation] == "true":
			// the operator's own former default, withdrawn in this same sync
		default:
			others = append(others, sc.Name)
		}
	}
	sort.Strings(others)
	if same != nil {
		if v, ok := same.Annotations[DefaultClassAnnotation]; ok && same.Annotations[DefaultManagedAnnotation] != "true" {
			target.Annotations[DefaultClassAnnotation] = v // the admin's value
			delete(target.Annotations, DefaultManagedAnnotation)
			return nil
		}
	}
	target.Annotations[DefaultManagedAnnotation] = "true"
	if len(others) > 0 {
		target.Annotations[DefaultClassAnnotation] = "false"
		return []string{fmt.Sprintf("StorageClass %s is already the cluster's default, so %s (storageClasses.defaultShareType %q) is not made a second default",
			others[0], target.Name, defaultShareType)}
	}
	return nil
}
