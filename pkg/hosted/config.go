package hosted

import (
	"fmt"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// CheckConfig refuses an operator configuration the hosted flavour cannot carry out. The guest's admin
// writes it, and the controller runs on the management cluster: an extraMounts entry reaching the
// controller would have the guest's admin choose volumes (host paths, Secrets, ConfigMaps) of a
// management node and of the HCP namespace. Entries for the node plugins stay theirs.
func CheckConfig(cfg *operatorconfig.Config) error {
	if cfg == nil {
		return nil
	}
	if cfg.CephFS.Enabled {
		return &operatorconfig.FieldError{Path: "cephfs.enabled", Reason: "the CephFS instance is not available when the control plane is hosted yet (docs/hosted.md)"}
	}
	if reach := extramounts.Propagate(cfg.MountEntries(), extramounts.ControllerTarget); len(reach) > 0 {
		return fmt.Errorf("%s reaches the controller plugin, which runs on the management cluster when the control plane is hosted: propagate it to the node plugins only", reach[0].Source)
	}
	return nil
}
