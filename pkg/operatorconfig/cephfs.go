package operatorconfig

import (
	"fmt"
	"strings"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cephcsi"
)

// CephFS turns on the CephFS instance of the Manila driver (cephfs.manila.csi.openstack.org) and the
// ceph-csi CephFS node plugin it forwards to. Off by default: OpenShift's payload carries no ceph-csi
// image, so the admin names one.
type CephFS struct {
	// Enabled installs the CephFS instance and gives CEPHFS share types classes.
	Enabled bool `json:"enabled,omitempty"`
	// Image is the ceph-csi image of the CephFS node plugin; required when Enabled. A ceph-csi
	// release known to reject Manila's share IDs is refused (cephcsi.KnownBad).
	Image string `json:"image,omitempty"`
}

func (c CephFS) validate() error {
	if c.Image == "" {
		if c.Enabled {
			return &FieldError{Path: "cephfs.image", Reason: "required when cephfs.enabled is true: OpenShift ships no ceph-csi image; name one, e.g. quay.io/cephcsi/cephcsi:" + cephcsi.Recommended}
		}
		return nil
	}
	if reason := cephcsi.CheckImage(c.Image); reason != "" {
		return &FieldError{Path: "cephfs.image", Reason: reason}
	}
	return nil
}

// The mounters manila-csi-plugin's CephFS adapter knows.
var cephFSMounters = []string{"kernel", "fuse"}

func (s ClassSettings) validateCephFS(path string) error {
	if s.CephFSMounter != nil {
		ok := false
		for _, m := range cephFSMounters {
			ok = ok || *s.CephFSMounter == m
		}
		if !ok {
			return &FieldError{Path: path + ".cephfs-mounter", Reason: fmt.Sprintf("%q is not one of kernel, fuse", *s.CephFSMounter)}
		}
	}
	if s.CephFSClientID != nil {
		if reason := InvalidCephxID(*s.CephFSClientID); reason != "" {
			return &FieldError{Path: path + ".cephfs-clientID", Reason: reason}
		}
	}
	for key, v := range map[string]*string{"cephfs-kernelMountOptions": s.CephFSKernelMountOptions, "cephfs-fuseMountOptions": s.CephFSFuseMountOptions} {
		if v != nil && strings.TrimSpace(*v) == "" {
			return &FieldError{Path: path + "." + key, Reason: "empty; leave it out for the mounter's defaults"}
		}
	}
	return nil
}

// InvalidCephxID says why Manila's API would refuse id as the access_to of a cephx rule, "" when it
// would not: Manila (api/v2/shares.py, validate_cephx_id) refuses an empty ID, one with characters
// outside printable ASCII and one with a period (to keep "client." out of it).
func InvalidCephxID(id string) string {
	if id == "" {
		return "empty; Manila refuses an empty cephx ID"
	}
	for _, r := range id {
		if r < 0x21 || r > 0x7e || r == ',' {
			return "one cephx ID of printable ASCII without spaces or commas (Manila refuses other characters)"
		}
	}
	if strings.Contains(id, ".") {
		return "Manila refuses a cephx ID with a period; give the ID without \"client.\""
	}
	return ""
}
