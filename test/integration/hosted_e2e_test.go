package integration

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guestlink"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// End to end, hosted: the controller's sidecars run in the management cluster's HCP namespace with
// the guest kubeconfig the rendered Deployment mounts, HyperShift's credentials Secrets and cloud
// config there as HyperShift writes them now (hosted_ca_test.go: with a private CA, now and before);
// a ReadWriteMany claim in the guest binds, the share is made in Manila with the guest's cluster ID in
// its metadata, and deleting the claim deletes the share.
func TestHostedE2EClaim(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	hw := w.StartHosted(t, framework.HostedOptions{})
	opts, counter := framework.OperatorOptions()
	// HyperShift's objects as it writes them now, for a cloud without a private CA.
	op := hw.RunHostedOperatorWithCredentials(t, opts, counter, framework.HyperShiftCredentials{CloudsYAML: w.OpenStack.CloudsYAML()})
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	guest := &framework.World{ControlPlane: hw.Guest, OpenStack: w.OpenStack}
	class := guest.WaitForClassOfShareType(t, "default")
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment in "+hw.HCPNamespace, func(ctx context.Context) error {
		_, err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		return err
	})

	start := time.Now()
	prov := guest.StartProvisioningWith(t, framework.ProvisioningOptions{Controller: hw.ControlPlane, ControllerNamespace: hw.HCPNamespace})
	t.Logf("hosted provisioning world up in %s", time.Since(start).Round(time.Millisecond))

	claim := guest.CreateClaim(t, "e2e-hosted", "data", class.Name, "1Gi")
	pv := guest.WaitForClaimBound(t, claim)
	share := guest.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	infra, err := hw.Guest.ConfigV1.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{
		clusterMetadataKey:                 infra.Status.InfrastructureName,
		"csi.storage.k8s.io/pvc/name":      claim.Name,
		"csi.storage.k8s.io/pvc/namespace": claim.Namespace,
	} {
		if share.Metadata[k] != v {
			t.Errorf("share %s metadata %v; want %s=%q (the guest's)", share.ID, share.Metadata, k, v)
		}
	}
	deleteClaimAndWaitForShareGone(t, guest, claim.Namespace, claim.Name, share.ID)
	noSecretInLogs(t, guest, prov)
}
