package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
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
	_, stop := startBinary(t, world, bin, "claim")
	defer stop()
	var class string
	framework.Eventually(t, framework.DefaultTimeout, "the StorageClass of share type "+shareType, func(ctx context.Context) error {
		classes, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		sc, ok := classes[shareType]
		if !ok {
			return fmt.Errorf("none among %d classes", len(classes))
		}
		class = sc.Name
		return nil
	})
	world.WaitForDeployment(t, nil)
	world.StartProvisioning(t)

	ctx := context.Background()
	const namespace, name = "bench-claims", "timed"
	if _, err := world.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	claims := world.Kube.CoreV1().PersistentVolumeClaims(namespace)
	created := time.Now()
	if _, err := claims.Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = claims.Delete(ctx, name, metav1.DeleteOptions{}) }()
	timing := claimTiming{shareType: shareType}
	var volume string
	framework.Eventually(t, 2*time.Minute, "the claim Bound", func(ctx context.Context) error {
		c, err := claims.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimBound {
			return fmt.Errorf("claim is %s", c.Status.Phase)
		}
		timing.bound, volume = time.Since(created), c.Spec.VolumeName
		return nil
	})
	pv, err := world.Kube.CoreV1().PersistentVolumes().Get(ctx, volume, metav1.GetOptions{})
	if err != nil || pv.Spec.CSI == nil {
		t.Fatalf("the claim's volume %s: %v", volume, err)
	}
	framework.Eventually(t, 2*time.Minute, "the share available", func(ctx context.Context) error {
		share, err := world.OpenStack.Share(ctx, pv.Spec.CSI.VolumeHandle)
		if err != nil {
			return err
		}
		if share.Status != "available" {
			return fmt.Errorf("share is %s", share.Status)
		}
		timing.shareStatus = time.Since(created)
		return nil
	})
	return timing
}

func printClaimTiming(c claimTiming) {
	fmt.Printf("\na ReadWriteMany claim of 1Gi on the class of share type %s, through manila-csi-plugin and csi-provisioner:\n", c.shareType)
	fmt.Printf("  claim created -> Bound            %s\n", c.bound.Round(10*time.Millisecond))
	fmt.Printf("  claim created -> share available  %s (Manila's status, polled)\n", c.shareStatus.Round(10*time.Millisecond))
}
