package classplan

import (
	"fmt"
	"maps"
	"slices"
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
	OwnerLabel              = names.OwnerLabel
	OwnerLabelValue         = names.OwnerLabelValue
	ShareTypeNameAnnotation = "manila.csi.openstack.org/share-type-name"
	ShareTypeIDAnnotation   = "manila.csi.openstack.org/share-type-id"
	// ClassNameAnnotation is the name the operator gave the class (see Owned).
	ClassNameAnnotation      = "manila.csi.openstack.org/class-name"
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
// NeedsAction marks reasons an admin can fix. Protocol is the protocol whose class the type does not
// get; empty when it gets none at all for a reason of the type's own (its storage_protocol, a share
// network it lacks).
type Skipped struct {
	ShareType   manilatypes.ShareType
	Kind        SkipKind
	Reason      string
	NeedsAction bool
	Protocol    Protocol
}

// SkipKind is why a share type gets no class, as a fixed word.
type SkipKind string

const (
	// SkipNoNFS: the type's storage_protocol names no protocol the operator makes classes for (NFS,
	// and CEPHFS while cephfs.enabled is true).
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
// Protocol is the class's (ProtocolOf); empty reads as ProtocolNFS.
type Owner struct {
	ID, Name string
	PerZone  bool
	Protocol Protocol
}

// OwnerOf is the Owner of one of the operator's classes, read from its annotations.
func OwnerOf(sc *storagev1.StorageClass) Owner {
	return Owner{ID: sc.Annotations[ShareTypeIDAnnotation], Name: sc.Annotations[ShareTypeNameAnnotation], PerZone: PerZone(sc), Protocol: ProtocolOf(sc)}
}

// protocol is the owner's protocol, ProtocolNFS unless it is ProtocolCephFS.
func (o Owner) protocol() Protocol {
	if o.Protocol == ProtocolCephFS {
		return ProtocolCephFS
	}
	return ProtocolNFS
}

// Desired is DesiredFor with cephfs.enabled false: NFS classes only.
func Desired(types []manilatypes.ShareType, settings operatorconfig.StorageClasses, owned map[string]Owner) ([]Wanted, []Skipped) {
	return DesiredFor(types, settings, false, owned)
}

// DesiredFor returns the classes for the share types under the given settings: an NFS class for each
// type that may serve NFS, and, when cephFS (cephfs.enabled) is true, a CephFS class for each type whose
// storage_protocol names CEPHFS; a type serving both gets both. owned maps the names of the operator's
// existing classes to the share type each was created for: a class keeps serving the share type with
// its ID, for its protocol, until the class is deleted (a renamed type keeps its class), and no other
// share type or protocol ever takes its name over, even when the name would be its plain mapping.
func DesiredFor(types []manilatypes.ShareType, settings operatorconfig.StorageClasses, cephFS bool, owned map[string]Owner) ([]Wanted, []Skipped) {
	served := map[Protocol][]manilatypes.ShareType{}
	var skipped []Skipped
	for _, st := range types {
		protocols := ServedProtocols(st)
		var classes []Protocol
		for _, p := range protocols {
			if p == ProtocolNFS || cephFS {
				classes = append(classes, p)
			}
		}
		if len(classes) == 0 {
			skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNoNFS, Reason: noClassReason(st, protocols, cephFS)})
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
		for _, p := range classes {
			served[p] = append(served[p], st)
		}
	}
	var wanted []Wanted
	for _, p := range []Protocol{ProtocolNFS, ProtocolCephFS} {
		w, s := named(p, served[p], settings, owned)
		wanted, skipped = append(wanted, w...), append(skipped, s...)
	}
	sort.Slice(wanted, func(i, j int) bool { return wanted[i].Class.Name < wanted[j].Class.Name })
	return wanted, skipped
}

// named gives each share type its class of protocol p: the class of its ID that it already has, else
// its mapped name, else the hashed form when another type's (or protocol's) class holds that name.
func named(p Protocol, served []manilatypes.ShareType, settings operatorconfig.StorageClasses, owned map[string]Owner) ([]Wanted, []Skipped) {
	prefix := p.namePrefix()
	typeNames := make([]string, len(served))
	for i, st := range served {
		typeNames[i] = st.Name
	}
	byID := map[string]string{}
	ownerNames := map[string]string{}
	for _, class := range slices.SortedFunc(maps.Keys(owned), operatorsNamesFirst(prefix)) {
		o := owned[class]
		if o.protocol() != p {
			continue
		}
		if _, claimed := byID[o.ID]; o.ID != "" && !o.PerZone && !claimed {
			byID[o.ID] = class
		}
		ownerNames[class] = o.Name
	}
	classNames := ClassNames(prefix, typeNames, ownerNames)
	wanted := make([]Wanted, 0, len(served))
	var skipped []Skipped
	for _, st := range served {
		name, sticky := byID[st.ID]
		if !sticky {
			name = classNames[st.Name]
			if o, taken := owned[name]; taken && (o.ID != st.ID || o.protocol() != p) {
				name = hashedName(prefix, st.Name) // the class of another share type, present or gone
			}
			if _, taken := owned[name]; taken {
				skipped = append(skipped, Skipped{ShareType: st, Kind: SkipNameTaken, NeedsAction: true, Protocol: p, Reason: fmt.Sprintf(
					"share type %q: StorageClasses %s and %s both serve other share types; delete the one no longer needed", st.Name, classNames[st.Name], name)})
				continue
			}
		}
		// One class of a type is the default: its NFS class, else (a CEPHFS-only type) its CephFS class.
		isDefault := settings.DefaultShareType != "" && settings.DefaultShareType == st.Name &&
			(p == ProtocolNFS || ServedProtocols(st)[0] != ProtocolNFS)
		wanted = append(wanted, Wanted{ShareType: st, Class: classFor(st, name, settings, p, isDefault)})
	}
	return wanted, skipped
}

// operatorsNamesFirst orders class names with the operator's prefix first, then by name. Two owned
// classes claim one share type only when one is a copy made before ClassNameAnnotation existed: the
// one named as the operator names its classes stands for the type, else the first by name.
func operatorsNamesFirst(prefix string) func(a, b string) int {
	return func(a, b string) int {
		pa, pb := strings.HasPrefix(a, prefix), strings.HasPrefix(b, prefix)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	}
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

func classFor(st manilatypes.ShareType, name string, settings operatorconfig.StorageClasses, p Protocol, isDefault bool) *storagev1.StorageClass {
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
	setIf(parameterAvailability, s.Availability)
	setIf(parameterAppendMetadata, s.AppendShareMetadata)
	annotations := map[string]string{ShareTypeNameAnnotation: st.Name, ShareTypeIDAnnotation: st.ID}
	var mountOptions []string
	switch p {
	case ProtocolCephFS:
		// nfs-shareClient and mountOptions are NFS settings (nfsvers=4.1 breaks a CephFS mount): the
		// CephFS mount is the cephfs-* parameters' business.
		params[parameterCephFSMounter] = defaultCephFSMounter
		setIf(parameterCephFSMounter, s.CephFSMounter)
		setIf(parameterCephFSClientID, s.CephFSClientID)
		setIf(parameterCephFSKernelMountOptions, s.CephFSKernelMountOptions)
		setIf(parameterCephFSFuseMountOptions, s.CephFSFuseMountOptions)
		annotations[ProtocolAnnotation] = string(ProtocolCephFS)
	default:
		setIf(parameterShareClient, shareClients(s.NFSShareClient))
		mountOptions = s.MountOptions
	}

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
	if isDefault {
		annotations[DefaultClassAnnotation] = "true" // settled by ApplyDefault
	}
	annotations[ClassNameAnnotation] = name
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      map[string]string{OwnerLabel: OwnerLabelValue},
			Annotations: annotations,
		},
		Provisioner:          p.provisioner(),
		Parameters:           params,
		ReclaimPolicy:        &reclaim,
		VolumeBindingMode:    &binding,
		AllowVolumeExpansion: &expand,
		MountOptions:         mountOptions,
	}
}

// Owned reports whether the operator owns the class: it has the owner label and, when it names one,
// ClassNameAnnotation names the class itself. A copy of one of the operator's classes under another
// name (`kubectl get -o yaml`, renamed, or the storage suite's copy of a class it tests) carries the
// label and annotations along but is not the operator's: it is an admin's class like any other. A
// class written before the annotation existed is owned by its label alone until the next plan's
// update adds the annotation.
func Owned(sc *storagev1.StorageClass) bool {
	if sc.Labels[OwnerLabel] != OwnerLabelValue {
		return false
	}
	given, ok := sc.Annotations[ClassNameAnnotation]
	return !ok || given == sc.Name
}
