package framework

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
)

// ProvisioningTimeout bounds each step of a claim's life in the provisioning world; seconds are the
// norm (docs/test-world.md), but a loaded 2-core machine was seen to take over 90 s for a share's
// create and delete (its share service took 1m40s to start in the same run).
const ProvisioningTimeout = 3 * time.Minute

// WaitForClassOfShareType waits for the operator's StorageClass of a share type (by name).
func (w *World) WaitForClassOfShareType(t testing.TB, shareType string) storagev1.StorageClass {
	t.Helper()
	var class storagev1.StorageClass
	Eventually(t, DefaultTimeout, "the StorageClass of share type "+shareType, func(ctx context.Context) error {
		classes, err := w.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		var ok bool
		if class, ok = classes[shareType]; !ok {
			return fmt.Errorf("none among %d classes", len(classes))
		}
		return nil
	})
	return class
}

// CreateClaim creates a ReadWriteMany claim of the given size on the class, in a namespace it creates
// if needed.
func (w *World) CreateClaim(t testing.TB, namespace, name, class, size string) *corev1.PersistentVolumeClaim {
	t.Helper()
	ctx := context.Background()
	_, err := w.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	claim, err := w.Kube.CoreV1().PersistentVolumeClaims(namespace).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// WaitForClaimBound waits until the claim is Bound and returns its volume; on timeout the claim's
// events say why.
func (w *World) WaitForClaimBound(t testing.TB, claim *corev1.PersistentVolumeClaim) *corev1.PersistentVolume {
	t.Helper()
	var pv *corev1.PersistentVolume
	Eventually(t, ProvisioningTimeout, "claim "+claim.Name+" Bound", func(ctx context.Context) error {
		c, err := w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimBound {
			return fmt.Errorf("claim is %s; events: %s", c.Status.Phase, w.ClaimEvents(ctx, c))
		}
		if pv, err = w.Kube.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{}); err != nil {
			return err
		}
		if pv.Spec.CSI == nil || pv.Spec.CSI.VolumeHandle == "" {
			return fmt.Errorf("volume %s has no CSI volume handle", pv.Name)
		}
		return nil
	})
	return pv
}

// ClaimEvents returns the claim's events as "reason: message | ...", or the error listing them.
func (w *World) ClaimEvents(ctx context.Context, c *corev1.PersistentVolumeClaim) string {
	events, err := w.Kube.CoreV1().Events(c.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + c.Name})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, e := range events.Items {
		out = append(out, e.Reason+": "+e.Message)
	}
	return strings.Join(out, " | ")
}

// WaitForShareAvailable waits until Manila reports the share available and returns it.
func (w *World) WaitForShareAvailable(t testing.TB, shareID string) Share {
	t.Helper()
	var share Share
	Eventually(t, ProvisioningTimeout, "share "+shareID+" available", func(ctx context.Context) error {
		var err error
		if share, err = w.OpenStack.Share(ctx, shareID); err != nil {
			return err
		}
		if share.Status != "available" {
			return fmt.Errorf("share is %s", share.Status)
		}
		return nil
	})
	return share
}
