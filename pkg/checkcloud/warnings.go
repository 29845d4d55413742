package checkcloud

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// nodeTargets are the workloads whose pods run privileged on every node: a hostPath there reaches
// the host with the driver's privileges.
var nodeTargets = []extramounts.Target{extramounts.NodeTarget, extramounts.NFSNodeTarget}

// shareClientParameter is the StorageClass parameter the driver reads its NFS access list from.
const shareClientParameter = "nfs-shareClient"

// configWarnings are the risky settings of the input files, whatever the cloud answers.
func configWarnings(cloud *clientconfig.Cloud, cfg operatorconfig.Config) []string {
	var out []string
	if openstack.InsecureTLS(cloud) {
		out = append(out, "clouds.yaml sets verify: false: "+openstack.InsecureTLSRisk)
	}
	for _, e := range cfg.MountEntries() {
		for _, v := range e.Volumes {
			if v.HostPath == nil {
				continue
			}
			var reached []string
			for _, t := range nodeTargets {
				if e.Matches(t) {
					reached = append(reached, string(t.Name))
				}
			}
			if len(reached) > 0 {
				out = append(out, fmt.Sprintf("%s: hostPath volume %q (%s) is mounted into %s, whose pods are privileged: the driver can read and write that host path on every node",
					e.Source, v.Name, v.HostPath.Path, strings.Join(reached, " and ")))
			}
		}
	}
	return out
}

// classWarnings flag NFS StorageClasses whose shares any host can mount: nfs-shareClient unset (the
// driver then grants access to 0.0.0.0/0) or set to a whole address space (a CephFS share is mounted
// with its cephx key, from any host). They also flag a defaultShareType that gets no class, and
// cephfs.enabled with no share type to make a CephFS class for.
func classWarnings(types []ShareTypeReport, cfg operatorconfig.Config) []string {
	settings := cfg.StorageClasses
	var unset, open []string
	defaultServed, cephFSClasses := false, 0
	for _, st := range types {
		if st.CephFSStorageClass != nil {
			cephFSClasses++
			defaultServed = defaultServed || st.Name == settings.DefaultShareType
		}
		c := st.StorageClass
		if c == nil {
			continue
		}
		if st.Name == settings.DefaultShareType {
			defaultServed = true
		}
		if !classplan.OpensToAnyHost(c.Parameters) {
			continue
		}
		if _, set := c.Parameters[shareClientParameter]; set {
			open = append(open, c.Name)
		} else {
			unset = append(unset, c.Name)
		}
	}
	var out []string
	if len(unset) > 0 {
		sort.Strings(unset)
		out = append(out, fmt.Sprintf("StorageClass %s: nfs-shareClient is not set, so the driver opens every share to 0.0.0.0/0; set storageClasses.defaults.nfs-shareClient: machineNetwork to limit them to the cluster's machine network", strings.Join(unset, ", ")))
	}
	if len(open) > 0 {
		sort.Strings(open)
		out = append(out, fmt.Sprintf("StorageClass %s: nfs-shareClient opens every share to any address; narrow it to machineNetwork, the cluster's machine network", strings.Join(open, ", ")))
	}
	if settings.DefaultShareType != "" && !defaultServed {
		out = append(out, fmt.Sprintf("storageClasses.defaultShareType %q gets no StorageClass, so no Manila class becomes the default", settings.DefaultShareType))
	}
	if cfg.CephFS.Enabled && cephFSClasses == 0 && len(types) > 0 {
		out = append(out, "cephfs.enabled is true, but no share type's storage_protocol names CEPHFS, so the CephFS instance gets no StorageClass")
	}
	return out
}
