package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The claim the demo makes, on the class of Manila's "default" share type.
const (
	claimNamespace = "demo"
	claimName      = "data"
	claimSize      = "1Gi"
	claimShareType = "default"
)

// claimShare shows the operator's objects at work: it runs the controller Deployment the operator
// rendered (manila-csi-plugin, csi-provisioner and csi-resizer as processes, with
// kube-controller-manager's PV controllers), creates a ReadWriteMany claim on the default-type class
// and prints the share Manila made for it. The export location is the test backend's: nothing can
// mount it.
func claimShare(ctx context.Context, t *testing.T, world *framework.World) {
	start := time.Now()
	world.StartProvisioning(t)
	say("provisioning world up in %s: the controller Deployment's manila-csi-plugin and csi-provisioner run as processes",
		time.Since(start).Round(time.Millisecond))

	class := world.WaitForClassOfShareType(t, claimShareType)
	claim := world.CreateClaim(t, claimNamespace, claimName, class.Name, claimSize)
	say("created PersistentVolumeClaim %s/%s (ReadWriteMany, %s) on StorageClass %s", claimNamespace, claimName, claimSize, class.Name)

	start = time.Now()
	pv := world.WaitForClaimBound(t, claim)
	say("claim bound in %s to PersistentVolume %s", time.Since(start).Round(time.Millisecond), pv.Name)

	share := world.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	locations, err := world.OpenStack.ExportLocations(ctx, share.ID)
	if err != nil {
		t.Fatal(err)
	}
	var exports []string
	for _, l := range locations {
		exports = append(exports, l.Path)
	}
	say("Manila share %s: type %s, %d GB, %s, status %s, export location %s",
		share.ID, share.ShareTypeName, share.Size, share.ShareProto, share.Status, strings.Join(exports, ", "))
}
