package classplan

import (
	"fmt"
	"strings"

	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Protocol is the share protocol a class provisions, as Manila's storage_protocol names it.
type Protocol string

const (
	// ProtocolNFS classes are the driver's (names.CSIDriverName), named NamePrefix + the share type.
	ProtocolNFS Protocol = "NFS"
	// ProtocolCephFS classes are the CephFS instance's (names.CephFSDriverName, cephfs.enabled), named
	// CephFSNamePrefix + the share type.
	ProtocolCephFS Protocol = "CEPHFS"
)

// ProtocolAnnotation marks a CephFS class with ProtocolCephFS, so that the NFS and the CephFS class
// of one share type are told apart by everything that follows a class by its share type's ID. A
// class without it is an NFS class: every class of a cluster from before CephFS classes, and every
// class the operator adopts.
const ProtocolAnnotation = "manila.csi.openstack.org/protocol"

// CephFS class parameters of manila-csi-plugin; set from the config, on CephFS classes only.
const (
	parameterCephFSMounter = "cephfs-mounter"
	// defaultCephFSMounter is the mounter of a class the config gives none, in place of the driver's
	// own default (fuse): every OpenShift node (RHCOS, RHEL) has the CephFS kernel client, whose mounts
	// are the kernel's and survive a restart of ceph-csi, while a ceph-fuse mount lives in ceph-csi's
	// container and ends with its pod.
	defaultCephFSMounter              = "kernel"
	parameterCephFSClientID           = "cephfs-clientID"
	parameterCephFSKernelMountOptions = "cephfs-kernelMountOptions"
	parameterCephFSFuseMountOptions   = "cephfs-fuseMountOptions"
)

// ProtocolOf is the protocol of a class: ProtocolCephFS when its ProtocolAnnotation says so, else
// ProtocolNFS.
func ProtocolOf(sc *storagev1.StorageClass) Protocol {
	if strings.EqualFold(sc.Annotations[ProtocolAnnotation], string(ProtocolCephFS)) {
		return ProtocolCephFS
	}
	return ProtocolNFS
}

// namePrefix starts the names of the protocol's classes.
func (p Protocol) namePrefix() string {
	if p == ProtocolCephFS {
		return CephFSNamePrefix
	}
	return NamePrefix
}

// provisioner is the CSI driver of the protocol's classes.
func (p Protocol) provisioner() string {
	if p == ProtocolCephFS {
		return names.CephFSDriverName
	}
	return names.CSIDriverName
}

// storageProtocols are the protocols a share type's storage_protocol extra spec names, upper-cased,
// split on '_', ' ' and ','; set is false when the type has no (or an empty) storage_protocol.
func storageProtocols(st manilatypes.ShareType) (tokens []string, set bool) {
	proto, ok := st.ExtraSpecs[extraSpecProtocol]
	if !ok || strings.TrimSpace(proto) == "" {
		return nil, false
	}
	return strings.FieldsFunc(strings.ToUpper(proto), func(r rune) bool { return r == '_' || r == ' ' || r == ',' }), true
}

// ServedProtocols are the protocols of the operator's classes that a share type's storage_protocol
// names, NFS first: a type without storage_protocol may serve NFS (and is taken to, as always); one
// that names protocols serves those of NFS and CEPHFS it lists. Whether CephFS classes are made at all
// is cephfs.enabled's business (DesiredFor).
func ServedProtocols(st manilatypes.ShareType) []Protocol {
	tokens, set := storageProtocols(st)
	if !set {
		return []Protocol{ProtocolNFS}
	}
	var out []Protocol
	for _, p := range []Protocol{ProtocolNFS, ProtocolCephFS} {
		for _, t := range tokens {
			if t == string(p) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// noClassReason says why a type gets no class at all for its storage_protocol.
func noClassReason(st manilatypes.ShareType, served []Protocol, cephFS bool) string {
	proto := st.ExtraSpecs[extraSpecProtocol]
	switch {
	case len(served) > 0 && !cephFS: // CEPHFS only, and CephFS classes are off
		return fmt.Sprintf("share type %q has storage_protocol=%s; the driver serves NFS only while CephFS is off: set cephfs.enabled: true and cephfs.image in ConfigMap %s to get a CephFS StorageClass",
			st.Name, proto, operatorconfig.ConfigMapName)
	case cephFS:
		return fmt.Sprintf("share type %q has storage_protocol=%s; the operator makes StorageClasses for NFS and CEPHFS only", st.Name, proto)
	}
	return fmt.Sprintf("share type %q has storage_protocol=%s; the driver serves NFS only", st.Name, proto)
}

// CephFSOffReason is why a share type whose storage_protocol names CEPHFS gets no CephFS class while
// cephfs.enabled is false, for a report beside its NFS class.
func CephFSOffReason(st manilatypes.ShareType) string {
	return fmt.Sprintf("share type %q has storage_protocol=%s; CephFS StorageClasses are off: set cephfs.enabled: true and cephfs.image in ConfigMap %s",
		st.Name, st.ExtraSpecs[extraSpecProtocol], operatorconfig.ConfigMapName)
}
