package integration

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// What the end-to-end tests check of the shares Manila holds for claims.

// clusterMetadataKey is the share metadata manila-csi-plugin sets from its --cluster-id.
const clusterMetadataKey = "manila.csi.openstack.org/cluster"

// driverDefaultShareClient is what manila-csi-plugin opens a share to when the class names no
// nfs-shareClient.
const driverDefaultShareClient = "0.0.0.0/0"

// checkShare checks what the class asked of the share: its type, size and protocol, the claim it
// was made for (the provisioner runs with --extra-create-metadata, so the driver records the claim's
// name and namespace and the volume's name), the cluster ID (the Infrastructure's infrastructureName,
// through the driver's --cluster-id), and one active ip rule per nfs-shareClient entry (the driver's
// default when the class names none).
func checkShare(t *testing.T, w *framework.World, share framework.Share, class storagev1.StorageClass,
	claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, shareType string, gb int) {
	t.Helper()
	if share.ShareTypeName != shareType || share.Size != gb || share.ShareProto != "NFS" {
		t.Errorf("share %s is type %q, %d GB, %s; want %q, %d GB, NFS", share.ID, share.ShareTypeName, share.Size, share.ShareProto, shareType, gb)
	}
	infra, err := w.ConfigV1.ConfigV1().Infrastructures().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clusterID := infra.Status.InfrastructureName
	if id := driverArg(t, w, "--cluster-id"); clusterID == "" || id != clusterID {
		t.Errorf("driver --cluster-id=%q; want the Infrastructure's infrastructureName %q", id, clusterID)
	}
	want := map[string]string{
		clusterMetadataKey:                 clusterID,
		"csi.storage.k8s.io/pvc/name":      claim.Name,
		"csi.storage.k8s.io/pvc/namespace": claim.Namespace,
		"csi.storage.k8s.io/pv/name":       pv.Name,
	}
	for k, v := range want {
		if share.Metadata[k] != v {
			t.Errorf("share %s metadata %v; want %s=%q", share.ID, share.Metadata, k, v)
		}
	}
	// The recipe of docs/tools.md: the claim's share, found in Manila by the cluster's and the claim's metadata.
	found, err := w.OpenStack.SharesByMetadata(context.Background(), map[string]string{clusterMetadataKey: clusterID,
		"csi.storage.k8s.io/pvc/namespace": claim.Namespace, "csi.storage.k8s.io/pvc/name": claim.Name})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].ID != share.ID {
		t.Errorf("shares by the claim's metadata: %+v; want only %s", found, share.ID)
	}
	checkShareRules(t, w, share, class)
}

// checkShareRules waits for one active ip rule per nfs-shareClient entry of the class (the driver's
// default when the class names none).
func checkShareRules(t *testing.T, w *framework.World, share framework.Share, class storagev1.StorageClass) {
	t.Helper()
	want := []string{driverDefaultShareClient}
	if c := class.Parameters["nfs-shareClient"]; c != "" {
		want = strings.Split(c, ",")
	}
	slices.Sort(want)
	framework.Eventually(t, framework.ProvisioningTimeout, fmt.Sprintf("share %s open to %v", share.ID, want), func(ctx context.Context) error {
		rules, err := w.OpenStack.AccessRules(ctx, share.ID)
		if err != nil {
			return err
		}
		var active []string
		for _, r := range rules {
			if r.AccessType == "ip" && r.AccessLevel == "rw" && r.State == "active" {
				active = append(active, r.AccessTo)
			}
		}
		slices.Sort(active)
		if !slices.Equal(active, want) {
			return fmt.Errorf("rules %+v", rules)
		}
		return nil
	})
}

// deleteClaimAndWaitForShareGone deletes the claim and waits until Manila no longer has the share.
func deleteClaimAndWaitForShareGone(t *testing.T, w *framework.World, namespace, name, shareID string) {
	t.Helper()
	if err := w.Kube.CoreV1().PersistentVolumeClaims(namespace).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForShareGone(t, w, shareID)
}

// waitForShareGone waits until Manila answers 404 for the share.
func waitForShareGone(t *testing.T, w *framework.World, shareID string) {
	t.Helper()
	framework.Eventually(t, framework.ProvisioningTimeout, "share "+shareID+" deleted with its claim", func(ctx context.Context) error {
		s, err := w.OpenStack.Share(ctx, shareID)
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return nil
		}
		return fmt.Errorf("share is %s (err=%v)", s.Status, err)
	})
}
