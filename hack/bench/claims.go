package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// claimTiming is how long a claim on an operator-made class takes through the real driver.
type claimTiming struct {
	shareType          string
	bound, shareStatus time.Duration
}

// timeClaim runs the binary once more with the provisioning world (the real manila-csi-plugin and
// csi-provisioner as the operator rendered them, kube-controller-manager's PV binder) and times a
// ReadWriteMany claim on the class of shareType: from its creation to Bound, and to Manila's share
// available.
func timeClaim(t *testing.T, world *framework.World, bin, shareType string) claimTiming {
	_, stop := startBinary(t, world, operatorSubject(bin), "claim")
	defer stop()
	class := world.WaitForClassOfShareType(t, shareType)
	world.WaitForDeployment(t, nil)
	world.StartProvisioning(t)

	created := time.Now()
	claim := world.CreateClaim(t, "bench-claims", "timed", class.Name, "1Gi")
	defer func() {
		_ = world.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Delete(context.Background(), claim.Name, metav1.DeleteOptions{})
	}()
	pv := world.WaitForClaimBound(t, claim)
	timing := claimTiming{shareType: shareType, bound: time.Since(created)}
	world.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	timing.shareStatus = time.Since(created)
	return timing
}

func printClaimTiming(c claimTiming) {
	fmt.Printf("\na ReadWriteMany claim of 1Gi on the class of share type %s, through manila-csi-plugin and csi-provisioner:\n", c.shareType)
	fmt.Printf("  claim created -> Bound            %s\n", c.bound.Round(10*time.Millisecond))
	fmt.Printf("  claim created -> share available  %s (Manila's status, polled)\n", c.shareStatus.Round(10*time.Millisecond))
}
