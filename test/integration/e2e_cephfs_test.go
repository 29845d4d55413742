package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The CephFS share type of the test backend (hack/manila), and the monitors its shares' export
// locations name.
var cephFSType = framework.CephFSShareType("cephgold", framework.CephFSBackend, false)

const (
	testCephMonitors = "192.0.2.21:6789,192.0.2.22:6789"
	cephClientID     = "ocp-cephfs"
)

// CephFS end to end on the test backend, for what the real Ceph of TestE2ECephFSMounted cannot serve:
// the kernel mounter (this machine has no ceph kernel module, so only a recording stand-in of
// ceph-csi can take its NodeStage). The operator's CephFS class provisions through the real
// manila-csi-plugin in CEPHFS mode and csi-provisioner against the real Manila whose test backend
// serves native CephFS: a CEPHFS share with a cephx rule for the configured client ID, whose key
// Manila fills; the real node plugin forwards NodeStage to the ceph-csi stand-in with the share's
// monitors, root path, kernel mounter, mount options and that user and key; deleting the claim
// deletes the share.
func TestE2ECephFS(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareTypes(ctx, []framework.ShareTypeSpec{cephFSType}); err != nil {
		t.Fatal(err)
	}
	w.WriteOperatorConfig(t, cephFSConfig(goodCephCSI)+`storageClasses:
  shareTypes:
    `+cephFSType.Name+`:
      cephfs-mounter: kernel
      cephfs-clientID: `+cephClientID+`
      cephfs-kernelMountOptions: ms_mode=secure
`)
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	w.RunOperator(t)
	t.Run("WorldServesCephFS", func(t *testing.T) { checkCephFSBackend(t, w) })
	class := waitForCephFSClass(t, w, cephFSType.Name)
	if p := class.Parameters; p["cephfs-mounter"] != "kernel" || p["cephfs-clientID"] != cephClientID || p["type"] != cephFSType.Name {
		t.Fatalf("class %s parameters %v", class.Name, p)
	}
	w.WaitForCondition(t, "ManilaCephFSDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)
	w.StartProvisioningWith(t, framework.ProvisioningOptions{CephFS: true})
	// Before the provisioner stops (cleanups run last first): every volume of the CephFS driver is
	// deleted, with its share, so that none keeps a later test's CephFS instance running.
	t.Cleanup(func() { waitForNoVolumeOf(t, w, cephfs.DriverName) })

	const ns = "e2e-cephfs"
	claim := w.CreateClaim(t, ns, "data", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	if pv.Spec.CSI.Driver != cephfs.DriverName {
		t.Fatalf("PV %s of driver %s", pv.Name, pv.Spec.CSI.Driver)
	}
	// The volume keeps its class's mounter (what docs/configuration.md says of a class changed later).
	if m := pv.Spec.CSI.VolumeAttributes["cephfs-mounter"]; m != "kernel" {
		t.Errorf("PV %s volume attribute cephfs-mounter %q, want the class's kernel (attributes %v)", pv.Name, m, pv.Spec.CSI.VolumeAttributes)
	}
	shareID := pv.Spec.CSI.VolumeHandle
	share := w.WaitForShareAvailable(t, shareID)
	if share.ShareProto != "CEPHFS" || share.ShareTypeName != cephFSType.Name {
		t.Fatalf("share %+v; want a CEPHFS share of type %s", share, cephFSType.Name)
	}
	key := waitForCephxKey(t, w, shareID, cephClientID)

	t.Run("NodeStageForwardedToCephCSI", func(t *testing.T) {
		node := w.StartNode(t, framework.NodeOptions{CephFS: true})
		k, err := node.Kubelet(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.MountForPod(ctx, pv, "cephfs-pod-1"); err != nil {
			t.Fatalf("mount: %v\n%s", err, node.Log("manila-csi-plugin", 30))
		}
		stage, err := node.LastCall("NodeStageVolume", shareID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"monitors": testCephMonitors, "rootPath": "/volumes/_nogroup/" + shareID,
			"mounter": "kernel", "provisionVolume": "false", "kernelMountOptions": "ms_mode=secure",
		}
		for k, v := range want {
			if stage.VolumeContext[k] != v {
				t.Errorf("NodeStage volume context %s = %q, want %q (context %v)", k, stage.VolumeContext[k], v, stage.VolumeContext)
			}
		}
		sum := sha256.Sum256([]byte(key))
		if stage.UserID != cephClientID || stage.UserKeySHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("NodeStage cephx user %q key hash %q; want %q and the hash of Manila's access key", stage.UserID, stage.UserKeySHA256, cephClientID)
		}
		if _, err := node.LastCall("NodePublishVolume", shareID); err != nil {
			t.Error(err)
		}
		if err := k.UnmountForPod(ctx, pv, "cephfs-pod-1"); err != nil {
			t.Fatal(err)
		}
		if _, err := node.LastCall("NodeUnstageVolume", shareID); err != nil {
			t.Error(err)
		}
	})

	t.Run("DeleteClaimDeletesShare", func(t *testing.T) {
		deleteClaimAndWaitForShareGone(t, w, ns, claim.Name, shareID)
	})

	// The NFS instance is still there, untouched by the CephFS one.
	w.WaitForDeployment(t, func(d *appsv1.Deployment) error { return nil })
	if c := w.Condition(t, "ManilaDriverControllerServiceControllerDegraded"); c == nil || c.Status != operatorv1.ConditionFalse {
		t.Errorf("NFS controller condition %+v", c)
	}
}

// waitForCephFSClass waits for the operator's CephFS class of a share type.
func waitForCephFSClass(t *testing.T, w *framework.World, shareType string) *storagev1.StorageClass {
	t.Helper()
	var found *storagev1.StorageClass
	framework.Eventually(t, framework.DefaultTimeout, "the CephFS class of share type "+shareType, func(ctx context.Context) error {
		classes, err := w.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		for _, c := range classes {
			if c.Provisioner == cephfs.DriverName && c.Parameters["type"] == shareType {
				found = c.DeepCopy()
				return nil
			}
		}
		return fmt.Errorf("none among %d classes", len(classes))
	})
	return found
}

// waitForCephxKey waits until the share has an active cephx rule for id with the key Manila's backend
// answered, and returns the key; a second rule or another access type fails the test.
func waitForCephxKey(t *testing.T, w *framework.World, shareID, id string) string {
	t.Helper()
	var key string
	framework.Eventually(t, framework.ProvisioningTimeout, "the cephx rule of share "+shareID, func(ctx context.Context) error {
		rules, err := w.OpenStack.AccessRules(ctx, shareID)
		if err != nil {
			return err
		}
		if len(rules) != 1 || rules[0].AccessType != "cephx" || rules[0].AccessTo != id || rules[0].AccessLevel != "rw" {
			t.Fatalf("access rules %+v; want one rw cephx rule for %s", rules, id)
		}
		if rules[0].State != "active" || rules[0].AccessKey == "" {
			return fmt.Errorf("rule %s is %s, key given: %t", rules[0].ID, rules[0].State, rules[0].AccessKey != "")
		}
		key = rules[0].AccessKey
		return nil
	})
	return key
}
