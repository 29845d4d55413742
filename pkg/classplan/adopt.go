package classplan

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// AdoptedAnnotation marks a class the operator adopted, OpenShift's own Manila operator's or an
// admin's made the same way, rather than created: storageClassState Removed releases such a class
// (takes the operator's label and annotations off) instead of deleting it.
const AdoptedAnnotation = "manila.csi.openstack.org/adopted"

// Adoption is what Adoptions found among the classes without the owner label that name the driver.
type Adoption struct {
	// Adopt maps a class name to the share type the operator takes it over for.
	Adopt map[string]manilatypes.ShareType
	// Refused maps a class name to why it is left alone, naming the field.
	Refused map[string]string
}

// Adoptions decides which classes the operator takes over: a class is OpenShift's own Manila
// operator's when its provisioner is the driver, it has no owner label, its `type` parameter names a
// listed share type, and every secret parameter points at the driver secret (a copy of one of the
// operator's own classes, which carries its label, is an admin's and never adopted). A share type gets at most
// one class: one the operator owns already wins, then the predecessor's name for it, then the first
// by name. Only NFS classes are adopted: the CephFS instance is this operator's own, so no
// predecessor left classes of it. Only classes whose provisioner is the driver (or whose name has the operator's prefix) are
// reported as refused; other provisioners' classes are not the driver's business.
func Adoptions(all []*storagev1.StorageClass, types []manilatypes.ShareType, owned map[string]Owner) Adoption {
	a := Adoption{Adopt: map[string]manilatypes.ShareType{}, Refused: map[string]string{}}
	byName := map[string]manilatypes.ShareType{}
	for _, st := range types {
		byName[st.Name] = st
	}
	served := map[string]string{} // share-type ID -> NFS class
	for _, class := range slices.SortedFunc(maps.Keys(owned), operatorsNamesFirst(NamePrefix)) {
		if o := owned[class]; !o.PerZone && o.protocol() == ProtocolNFS && served[o.ID] == "" {
			served[o.ID] = class
		}
	}
	candidates := map[string][]*storagev1.StorageClass{}
	for _, sc := range all {
		if Owned(sc) || (sc.Provisioner != names.CSIDriverName && !strings.HasPrefix(sc.Name, NamePrefix)) {
			continue
		}
		if sc.Labels[OwnerLabel] == OwnerLabelValue {
			a.Refused[sc.Name] = fmt.Sprintf("StorageClass %s is a copy of the operator's StorageClass %s (annotation %s): an admin's class, never adopted",
				sc.Name, sc.Annotations[ClassNameAnnotation], ClassNameAnnotation)
			continue
		}
		st, why := adoptable(sc, byName)
		if why != "" {
			a.Refused[sc.Name] = why
			continue
		}
		candidates[st.ID] = append(candidates[st.ID], sc)
	}
	for id, classes := range candidates {
		sort.Slice(classes, func(i, j int) bool {
			pi, pj := classes[i].Name == PredecessorName(classes[i].Parameters[parameterType]), classes[j].Name == PredecessorName(classes[j].Parameters[parameterType])
			if pi != pj {
				return pi
			}
			return classes[i].Name < classes[j].Name
		})
		for i, sc := range classes {
			st := byName[sc.Parameters[parameterType]]
			switch {
			case served[id] != "":
				a.Refused[sc.Name] = fmt.Sprintf("StorageClass %s: share type %q already has the operator's StorageClass %s", sc.Name, st.Name, served[id])
			case i > 0:
				a.Refused[sc.Name] = fmt.Sprintf("StorageClass %s: share type %q already has StorageClass %s, adopted in its place", sc.Name, st.Name, classes[0].Name)
			default:
				a.Adopt[sc.Name] = st
			}
		}
	}
	return a
}

// adoptable returns the share type the class serves, or why it is not the predecessor's.
func adoptable(sc *storagev1.StorageClass, byName map[string]manilatypes.ShareType) (manilatypes.ShareType, string) {
	if sc.Provisioner != names.CSIDriverName {
		return manilatypes.ShareType{}, fmt.Sprintf("StorageClass %s: its provisioner is not %s", sc.Name, names.CSIDriverName)
	}
	keys := slices.Sorted(maps.Keys(sc.Parameters))
	if _, ok := sc.Parameters[secretParameterPrefix+"provisioner-secret-name"]; !ok {
		return manilatypes.ShareType{}, fmt.Sprintf("StorageClass %s: it has no parameter %sprovisioner-secret-name", sc.Name, secretParameterPrefix)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, secretParameterPrefix) {
			continue
		}
		want := ""
		switch {
		case strings.HasSuffix(k, "-secret-name"):
			want = driverSecretName
		case strings.HasSuffix(k, "-secret-namespace"):
			want = names.OperandNamespace
		default:
			continue
		}
		if sc.Parameters[k] != want {
			return manilatypes.ShareType{}, fmt.Sprintf("StorageClass %s: its parameter %s does not name the driver secret %s/%s", sc.Name, k, names.OperandNamespace, driverSecretName)
		}
	}
	st, ok := byName[sc.Parameters[parameterType]]
	if !ok {
		return manilatypes.ShareType{}, fmt.Sprintf("StorageClass %s: its parameter %s names no share type Manila lists", sc.Name, parameterType)
	}
	return st, ""
}

// PredecessorName is the name OpenShift's own Manila operator gives a share type's class.
func PredecessorName(shareType string) string {
	return NamePrefix + strings.ToLower(strings.ReplaceAll(shareType, "_", "-"))
}

// ImmutableChanges names the fields that differ between the wanted class and the existing one and that
// a StorageClass cannot change in place, for an event: parameters by key, never by value.
func ImmutableChanges(want, have *storagev1.StorageClass) []string {
	var out []string
	if want.Provisioner != have.Provisioner {
		out = append(out, "provisioner")
	}
	keys := map[string]bool{}
	for k := range want.Parameters {
		keys[k] = true
	}
	for k := range have.Parameters {
		keys[k] = true
	}
	var params []string
	for k := range keys {
		w, inWant := want.Parameters[k]
		if h, inHave := have.Parameters[k]; inWant != inHave || w != h {
			params = append(params, "parameters."+k)
		}
	}
	sort.Strings(params)
	out = append(out, params...)
	if !reflect.DeepEqual(want.ReclaimPolicy, have.ReclaimPolicy) {
		out = append(out, "reclaimPolicy")
	}
	if !reflect.DeepEqual(want.VolumeBindingMode, have.VolumeBindingMode) {
		out = append(out, "volumeBindingMode")
	}
	if !equality.Semantic.DeepEqual(want.AllowedTopologies, have.AllowedTopologies) {
		out = append(out, "allowedTopologies")
	}
	return out
}
