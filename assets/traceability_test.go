package assets

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// Shares are traceable to their claims: the provisioner passes the claim's name and namespace and the
// volume's name to the driver (--extra-create-metadata), which records them in the share's metadata
// with the cluster ID; pkg/hooks ClusterValues fills ${INFRASTRUCTURE_NAME} with the Infrastructure's
// status.infrastructureName.
func TestSharesTraceableToClaims(t *testing.T) {
	spec := decode[appsv1.Deployment](t, ControllerDeployment).Spec.Template.Spec
	if args := container(t, spec, "csi-provisioner").Args; !slices.Contains(args, "--extra-create-metadata") {
		t.Errorf("csi-provisioner args %v lack --extra-create-metadata", args)
	}
	if id := argValue(t, container(t, spec, "csi-driver").Args, "cluster-id"); id != "${INFRASTRUCTURE_NAME}" {
		t.Errorf("controller driver --cluster-id=%q, want ${INFRASTRUCTURE_NAME}", id)
	}
}
