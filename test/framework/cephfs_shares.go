package framework

import (
	"fmt"
	"strings"
)

// The CephFS backends of the provisioning world's Manila (hack/manila/manila_testbackend.py,
// CephFSTestDriver; sections of manila.conf in hack/openstack-peer.sh), beside the NFS one. Both
// serve native CEPHFS shares, as Manila's CephFS driver does, with no share servers, snapshots and
// shares from snapshots, and one export location "<monitors>:/volumes/_nogroup/<share id>".
const (
	// CephFSBackend answers every cephx access rule with a key (a cephx key: base64, 40 characters,
	// one per ID on the backend), except for the IDs it refuses, CephFSRefusedIDs.
	CephFSBackend = "cephfs"
	// CephFSNoCephxBackend grants no cephx access: every cephx rule ends in error.
	CephFSNoCephxBackend = "cephfs_nocephx"
	// CephFSNativeBackend is Manila's own CephFS driver on a real Ceph (OpenStackOptions.Ceph):
	// its shares are subvolumes, its cephx keys Ceph's.
	CephFSNativeBackend = "cephfs_native"
	// CephFSTestMonitors are the Ceph monitors of every export location of both backends
	// (option test_cephfs_monitors; TEST-NET-1, nothing can mount them).
	CephFSTestMonitors = "192.0.2.21:6789,192.0.2.22:6789"
)

// CephFSRefusedIDs are the cephx IDs whose rules CephFSBackend puts in error, as Manila's CephFS
// driver refuses its own identity (cephfs_auth_id, default manila) and Ceph refuses IDs its mgr did
// not create, such as admin (option test_cephx_refused_ids).
var CephFSRefusedIDs = []string{"admin", "manila"}

// CephFSShareType is the spec of a share type whose shares are native CephFS on one backend of the
// world (CephFSBackend or CephFSNoCephxBackend): extra specs share_backend_name, storage_protocol
// CEPHFS and driver_handles_share_servers False, and, with snapshots, snapshot_support and
// create_share_from_snapshot_support True. Create it with CreateShareType or CreateShareTypes.
func CephFSShareType(name, backend string, snapshots bool) ShareTypeSpec {
	specs := map[string]string{"share_backend_name": backend, "storage_protocol": "CEPHFS"}
	if snapshots {
		specs["snapshot_support"] = "True"
		specs["create_share_from_snapshot_support"] = "True"
	}
	return ShareTypeSpec{Name: name, ExtraSpecs: specs}
}

// SplitCephFSExportLocation splits the path of a CephFS export location as manila-csi-plugin does
// (shareadapters.splitExportLocationPath): the monitors before the last colon, the root path after it.
func SplitCephFSExportLocation(path string) (monitors, rootPath string, err error) {
	i := strings.LastIndexByte(path, ':')
	if i <= 0 {
		return "", "", fmt.Errorf("export location %q has no monitors", path)
	}
	return path[:i], path[i+1:], nil
}

// CephFSRootPath is the root path the CephFS test backends export a share at.
func CephFSRootPath(shareID string) string { return "/volumes/_nogroup/" + shareID }
