package classplan

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Labels and annotations that mark and describe the classes the operator owns.
const (
	OwnerLabel               = "manila.csi.openstack.org/owned-by"
	OwnerLabelValue          = names.OperatorName
	ShareTypeNameAnnotation  = "manila.csi.openstack.org/share-type-name"
	ShareTypeIDAnnotation    = "manila.csi.openstack.org/share-type-id"
	StaleAnnotation          = "manila.csi.openstack.org/share-type-absent-since"
	DefaultClassAnnotation   = "storageclass.kubernetes.io/is-default-class"
	driverSecretName         = "csi-manila-secrets"
	extraSpecProtocol        = "storage_protocol"
	extraSpecDHSS            = "driver_handles_share_servers"
	secretParameterPrefix    = "csi.storage.k8s.io/"
	parameterType            = "type"
	parameterShareNetworkID  = "shareNetworkID"
	parameterShareClient     = "nfs-shareClient"
	parameterAvailability    = "availability"
	parameterAppendMetadata  = "appendShareMetadata"
	defaultReclaimPolicy     = corev1.PersistentVolumeReclaimDelete
	defaultVolumeBindingMode = storagev1.VolumeBindingImmediate
)

// Wanted is a class the operator wants, with the share type it serves.
type Wanted struct {
	ShareType manilatypes.ShareType
	Class     *storagev1.StorageClass
}

// Skipped is a share type that gets no class, and why: Kind for programs (metrics), Reason for people.
// NeedsAction marks reasons an admin can fix.
type Skipped struct {
	ShareType   manilatypes.ShareType
	Kind        SkipKind
	Reason      string
	NeedsAction bool
}

// SkipKind is why a share type gets no class, as a fixed word.
type SkipKind string

const (
	// SkipNoNFS: the type's storage_protocol names no NFS; the driver serves NFS only.
	SkipNoNFS SkipKind = "NoNFS"
	// SkipNoShareNetwork: a driver_handles_share_servers=True type without a share network in the config.
	SkipNoShareNetwork SkipKind = "NoShareNetwork"
	// SkipNameTaken: both names the type could get belong to other share types' classes.
	SkipNameTaken SkipKind = "NameTaken"
	// SkipNoZone: in topology.mode Zonal, none of the Manila zones the type is limited to is listed.
	SkipNoZone SkipKind = "NoZone"
	// SkipZoneName: in topology.mode Zonal, a Manila zone maps to a compute zone that is not a label value.
	SkipZoneName SkipKind = "ZoneName"
)

// Owner is the share type an existing owned class was created for, from its annotations.
// PerZone marks a per-zone class (topology.perZoneClasses), which never stands for the type's own.
type Owner struct {
	ID, Name string
	PerZone  bool
}

// Desired returns the classes for the share types under the given settings. owned maps the names of
// the operator's existing classes to the share type each was created for: a class keeps serving the
// share type with its ID until the class is deleted (a renamed type keeps its class), and no other
// share type ever takes its name over, even when the name would be its plain mapping.
func Desired(types []manilatypes.ShareType, settings operatorconfig.StorageClasses, owned map[string]Owner) ([]Wanted, []Skipped) {
	var served []manilatypes.ShareType
	var skipped []Skipped
	for _, st := range types {
		if reason, ok := servesNFS(st); !ok {
			skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNoNFS, Reason: reason})
			continue
		}
		if isTrue(st.ExtraSpecs[extraSpecDHSS]) {
			if net := settings.For(st.Name).ShareNetworkID; net == nil || *net == "" {
				skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNoShareNetwork, NeedsAction: true, Reason: fmt.Sprintf(
					"share type %q has driver_handles_share_servers=True and needs a share network: set storageClasses.shareTypes.%s.shareNetworkID (or storageClasses.defaults.shareNetworkID) in ConfigMap %s",
					st.Name, st.Name, operatorconfig.ConfigMapName)})
				continue
			}
		}
		served = append(served, st)
	}
	typeNames := make([]string, len(served))
	for i, st := range served {
		typeNames[i] = st.Name
	}
	byID := map[string]string{}
	ownerNames := map[string]string{}
	for class, o := range owned {
		if o.ID != "" && !o.PerZone {
			byID[o.ID] = class
		}
		ownerNames[class] = o.Name
	}
	classNames := ClassNames(typeNames, ownerNames)
	wanted := make([]Wanted, 0, len(served))
	for _, st := range served {
		name, sticky := byID[st.ID]
		if !sticky {
			name = classNames[st.Name]
			if o, taken := owned[name]; taken && o.ID != st.ID {
				name = hashedName(st.Name) // the class of another share type, present or gone
			}
			if _, taken := owned[name]; taken {
				skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNameTaken, NeedsAction: true, Reason: fmt.Sprintf(
					"share type %q: StorageClasses %s and %s both serve other share types; delete the one no longer needed", st.Name, classNames[st.Name], name)})
				continue
			}
		}
		wanted = append(wanted, Wanted{ShareType: st, Class: classFor(st, name, settings)})
	}
	sort.Slice(wanted, func(i, j int) bool { return wanted[i].Class.Name < wanted[j].Class.Name })
	return wanted, skipped
}

// servesNFS: a type without storage_protocol may serve NFS; one that names protocols must list NFS.
func servesNFS(st manilatypes.ShareType) (string, bool) {
	proto, ok := st.ExtraSpecs[extraSpecProtocol]
	if !ok || strings.TrimSpace(proto) == "" {
		return "", true
	}
	for _, p := range strings.FieldsFunc(strings.ToUpper(proto), func(r rune) bool { return r == '_' || r == ' ' || r == ',' }) {
		if p == "NFS" {
			return "", true
		}
	}
	return fmt.Sprintf("share type %q has storage_protocol=%s; the driver serves NFS only", st.Name, proto), false
}

func isTrue(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "true") }

// shareClients writes a validated client list as the driver reads it: the driver splits it on commas
// without trimming, and Manila refuses " 10.0.1.0/24", so "a, b" (valid config) becomes "a,b".
func shareClients(list *string) *string {
	if list == nil {
		return nil
	}
	parts := strings.Split(*list, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	joined := strings.Join(parts, ",")
	return &joined
}

func classFor(st manilatypes.ShareType, name string, settings operatorconfig.StorageClasses) *storagev1.StorageClass {
	s := settings.For(st.Name)
	params := map[string]string{parameterType: st.Name}
	for _, op := range []string{"provisioner", "node-stage", "node-publish", "controller-expand"} {
		params[secretParameterPrefix+op+"-secret-name"] = driverSecretName
		params[secretParameterPrefix+op+"-secret-namespace"] = names.OperandNamespace
	}
	setIf := func(key string, v *string) {
		if v != nil && *v != "" {
			params[key] = *v
		}
	}
	setIf(parameterShareNetworkID, s.ShareNetworkID)
	setIf(parameterShareClient, shareClients(s.NFSShareClient))
	setIf(parameterAvailability, s.Availability)
	setIf(parameterAppendMetadata, s.AppendShareMetadata)

	reclaim, binding, expand := defaultReclaimPolicy, defaultVolumeBindingMode, true
	if s.ReclaimPolicy != nil {
		reclaim = *s.ReclaimPolicy
	}
	if s.VolumeBindingMode != nil {
		binding = *s.VolumeBindingMode
	}
	if s.AllowVolumeExpansion != nil {
		expand = *s.AllowVolumeExpansion
	}
	annotations := map[string]string{ShareTypeNameAnnotation: st.Name, ShareTypeIDAnnotation: st.ID}
	if settings.DefaultShareType != "" && settings.DefaultShareType == st.Name {
		annotations[DefaultClassAnnotation] = "true" // settled by ApplyDefault
	}
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{OwnerLabel: OwnerLabelValue},
			Annotations: annotations,
		},
		Provisioner:          names.CSIDriverName,
		Parameters:           params,
		ReclaimPolicy:        &reclaim,
		VolumeBindingMode:    &binding,
		AllowVolumeExpansion: &expand,
		MountOptions:         s.MountOptions,
	}
}

// Owned reports whether the operator owns the class.
func Owned(sc *storagev1.StorageClass) bool { return sc.Labels[OwnerLabel] == OwnerLabelValue }
