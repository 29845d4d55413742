package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The share types of the snapshot test: one whose shares can be snapshotted and restored, one
// created with nothing but driver_handles_share_servers, as most admins create a type (Manila then
// gives its shares no snapshot support).
var (
	snapshotType = framework.ShareTypeSpec{Name: "snapshots", ExtraSpecs: map[string]string{
		"snapshot_support": "True", "create_share_from_snapshot_support": "True",
	}}
	noSnapshotType = framework.ShareTypeSpec{Name: "nosnapshots"}
)

// driverSnapshotSupportError is what manila-csi-plugin answers CreateSnapshot of a share without
// both snapshot capabilities.
const driverSnapshotSupportError = "parent share must advertise snapshot_support and create_share_from_snapshot_support capabilities"

// Snapshots through the operator's VolumeSnapshotClass, with the real snapshot controller,
// csi-snapshotter (as the controller Deployment renders it), csi-provisioner and manila-csi-plugin
// against the real Manila: a snapshot of a claim becomes a Manila snapshot, a claim from it a share
// created from it, deleting it deletes the Manila snapshot; a share type without snapshot support
// gives the driver's error and leaves nothing behind.
func TestE2ESnapshots(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareTypes(ctx, []framework.ShareTypeSpec{snapshotType, noSnapshotType}); err != nil {
		t.Fatal(err)
	}
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	class := w.WaitForClassOfShareType(t, snapshotType.Name)
	plainClass := w.WaitForClassOfShareType(t, noSnapshotType.Name)
	// What the snapshotter passes the driver in CreateSnapshot/DeleteSnapshot: the driver's credentials.
	params := w.WaitForSnapshotClass(t)
	if params["csi.storage.k8s.io/snapshotter-secret-name"] != names.DriverSecret ||
		params["csi.storage.k8s.io/snapshotter-secret-namespace"] != names.OperandNamespace {
		t.Fatalf("VolumeSnapshotClass %s parameters %v; want the snapshotter secret %s/%s", framework.SnapshotClass, params,
			names.OperandNamespace, names.DriverSecret)
	}
	w.WaitForDeployment(t, nil)
	start := time.Now()
	prov := w.StartProvisioning(t)
	prov.RequireSnapshots(t)
	t.Logf("provisioning world with snapshots up in %s", time.Since(start).Round(time.Millisecond))

	const ns = "e2e-snapshots"
	claim := w.CreateClaim(t, ns, "source", class.Name, "1Gi")
	sourceShare := w.WaitForClaimBound(t, claim).Spec.CSI.VolumeHandle
	w.WaitForShareAvailable(t, sourceShare)

	var handle string
	t.Run("SnapshotReadyAndInManila", func(t *testing.T) {
		start := time.Now()
		w.CreateVolumeSnapshot(t, ns, "snap", claim.Name, framework.SnapshotClass)
		handle = w.WaitForVolumeSnapshotReady(t, ns, "snap").SnapshotHandle
		t.Logf("VolumeSnapshot ready in %s", time.Since(start).Round(time.Millisecond))
		snap, err := w.OpenStack.ShareSnapshot(ctx, handle)
		if err != nil {
			t.Fatal(err)
		}
		if snap.ShareID != sourceShare || snap.Status != "available" || snap.Size != 1 {
			t.Errorf("Manila snapshot %+v; want an available 1 GB snapshot of share %s", snap, sourceShare)
		}
	})
	if handle == "" {
		t.Fatal("no snapshot to go on with")
	}

	t.Run("ClaimFromSnapshotBindsToShareFromIt", func(t *testing.T) {
		restored := createClaimFromSnapshot(t, w, ns, "restored", class.Name, "snap", "1Gi")
		start := time.Now()
		pv := w.WaitForClaimBound(t, restored)
		share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
		t.Logf("restored claim bound in %s", time.Since(start).Round(time.Millisecond))
		if share.ID == sourceShare || share.SnapshotID != handle || share.ShareTypeName != snapshotType.Name {
			t.Errorf("restored claim's share %s: snapshot %q, type %q; want a new share of snapshot %s, type %s",
				share.ID, share.SnapshotID, share.ShareTypeName, handle, snapshotType.Name)
		}
		deleteClaimAndWaitForShareGone(t, w, ns, restored.Name, share.ID)
	})

	t.Run("DeletingSnapshotDeletesManilaSnapshot", func(t *testing.T) {
		w.DeleteVolumeSnapshot(t, ns, "snap")
		framework.Eventually(t, framework.ProvisioningTimeout, "Manila snapshot "+handle+" deleted", func(ctx context.Context) error {
			s, err := w.OpenStack.ShareSnapshot(ctx, handle)
			if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				return nil
			}
			return fmt.Errorf("snapshot is %s (err=%v)", s.Status, err)
		})
		waitForVolumeSnapshotGone(t, w, ns, "snap")
		noManilaSnapshots(t, w, sourceShare)
	})

	t.Run("TypeWithoutSnapshotSupport", func(t *testing.T) {
		plain := w.CreateClaim(t, ns, "plain", plainClass.Name, "1Gi")
		share := w.WaitForClaimBound(t, plain).Spec.CSI.VolumeHandle
		w.WaitForShareAvailable(t, share)
		w.CreateVolumeSnapshot(t, ns, "plain-snap", plain.Name, framework.SnapshotClass)
		// The driver refuses before it asks Manila: the VolumeSnapshot's status and the event of its
		// content (csi-snapshotter records on the content; the snapshot controller copies the
		// content's error into the VolumeSnapshot's status) carry its message.
		framework.Eventually(t, framework.ProvisioningTimeout, "the driver's error on VolumeSnapshot plain-snap", func(ctx context.Context) error {
			s, err := w.VolumeSnapshot(ctx, ns, "plain-snap")
			if err != nil {
				return err
			}
			if s.ReadyToUse || !strings.Contains(s.Error, driverSnapshotSupportError) {
				return fmt.Errorf("ready %t, error %q", s.ReadyToUse, s.Error)
			}
			if events := w.ObjectEvents(ctx, "", "VolumeSnapshotContent", s.ContentName); !strings.Contains(events, driverSnapshotSupportError) {
				return fmt.Errorf("events of content %s: %s", s.ContentName, events)
			}
			return nil
		})
		noManilaSnapshots(t, w, share)

		w.DeleteVolumeSnapshot(t, ns, "plain-snap")
		waitForVolumeSnapshotGone(t, w, ns, "plain-snap")
		noManilaSnapshots(t, w, share)
		deleteClaimAndWaitForShareGone(t, w, ns, plain.Name, share)
	})

	deleteClaimAndWaitForShareGone(t, w, ns, claim.Name, sourceShare)
	noSecretInLogs(t, w, prov)
}

// createClaimFromSnapshot creates a ReadWriteMany claim whose dataSource is the VolumeSnapshot.
func createClaimFromSnapshot(t *testing.T, w *framework.World, namespace, name, class, snapshot, size string) *corev1.PersistentVolumeClaim {
	t.Helper()
	group := "snapshot.storage.k8s.io"
	claim, err := w.Kube.CoreV1().PersistentVolumeClaims(namespace).Create(context.Background(), &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &class,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			DataSource:       &corev1.TypedLocalObjectReference{APIGroup: &group, Kind: "VolumeSnapshot", Name: snapshot},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return claim
}

// waitForVolumeSnapshotGone waits until the VolumeSnapshot and every VolumeSnapshotContent bound to
// it are gone.
func waitForVolumeSnapshotGone(t *testing.T, w *framework.World, namespace, name string) {
	t.Helper()
	framework.Eventually(t, framework.ProvisioningTimeout, "VolumeSnapshot "+name+" and its content gone", func(ctx context.Context) error {
		if _, err := w.Dynamic.Resource(framework.VolumeSnapshotGVR).Namespace(namespace).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("VolumeSnapshot still there (err=%v)", err)
		}
		contents, err := w.VolumeSnapshotContentsOf(ctx, namespace, name)
		if err != nil {
			return err
		}
		if len(contents) > 0 {
			return fmt.Errorf("VolumeSnapshotContents %v left", contents)
		}
		return nil
	})
}

// noManilaSnapshots fails the test if Manila holds any snapshot of the share.
func noManilaSnapshots(t *testing.T, w *framework.World, shareID string) {
	t.Helper()
	snaps, err := w.OpenStack.ShareSnapshots(context.Background(), shareID)
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) > 0 {
		t.Errorf("Manila holds snapshots %+v of share %s; want none", snaps, shareID)
	}
}
