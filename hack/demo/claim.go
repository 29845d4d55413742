package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

	var class storagev1.StorageClass
	framework.Eventually(t, framework.DefaultTimeout, "the StorageClass of share type "+claimShareType, func(ctx context.Context) error {
		classes, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		var ok bool
		if class, ok = classes[claimShareType]; !ok {
			return fmt.Errorf("none among %d classes", len(classes))
		}
		return nil
	})
	claim := createClaim(ctx, t, world, class.Name)
	say("created PersistentVolumeClaim %s/%s (ReadWriteMany, %s) on StorageClass %s", claimNamespace, claimName, claimSize, class.Name)

	start = time.Now()
	var pv *corev1.PersistentVolume
	framework.Eventually(t, 90*time.Second, "claim "+claimName+" Bound", func(ctx context.Context) error {
		c, err := world.Kube.CoreV1().PersistentVolumeClaims(claimNamespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimBound {
			return fmt.Errorf("claim is %s", c.Status.Phase)
		}
		pv, err = world.Kube.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{})
		return err
	})
	say("claim bound in %s to PersistentVolume %s", time.Since(start).Round(time.Millisecond), pv.Name)

	var share framework.Share
	var exports []string
	framework.Eventually(t, 90*time.Second, "share "+pv.Spec.CSI.VolumeHandle+" available", func(ctx context.Context) error {
		var err error
		if share, err = world.OpenStack.Share(ctx, pv.Spec.CSI.VolumeHandle); err != nil {
			return err
		}
		if share.Status != "available" {
			return fmt.Errorf("share is %s", share.Status)
		}
		locations, err := world.OpenStack.ExportLocations(ctx, share.ID)
		if err != nil {
			return err
		}
		exports = nil
		for _, l := range locations {
			exports = append(exports, l.Path)
		}
		return nil
	})
	say("Manila share %s: type %s, %d GB, %s, status %s, export location %s",
		share.ID, share.ShareTypeName, share.Size, share.ShareProto, share.Status, strings.Join(exports, ", "))
}

func createClaim(ctx context.Context, t *testing.T, world *framework.World, class string) *corev1.PersistentVolumeClaim {
	_, err := world.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: claimNamespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	claim, err := world.Kube.CoreV1().PersistentVolumeClaims(claimNamespace).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Namespace: claimNamespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(claimSize)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}
