package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The CephFS share types of the test backend's two CephFS backends (hack/manila): one that grants
// cephx access, one that grants none; and the monitors its shares' export locations name.
var (
	cephFSType        = framework.CephFSShareType("cephgold", "cephfs", true)
	cephFSNoCephxType = framework.CephFSShareType("cephnokeys", "cephfs_nocephx", false)
)

const (
	testCephMonitors = "192.0.2.21:6789,192.0.2.22:6789"
	cephClientID     = "ocp-cephfs"
)

// CephFS end to end on the test backend, for what the real Ceph of TestE2ECephFSMounted cannot serve:
// the kernel mounter (this machine has no ceph kernel module, so only a recording stand-in of
// ceph-csi can take its NodeStage) and a backend that grants no cephx access (Manila's CephFS driver
// always grants it). The operator's CephFS class provisions through the real manila-csi-plugin in
// CEPHFS mode and csi-provisioner against the real Manila whose test backend serves native CephFS: a
// CEPHFS share with a cephx rule for the configured client ID, whose key Manila fills; the real node
// plugin forwards NodeStage to the ceph-csi stand-in with the share's monitors, root path, kernel
// mounter, mount options and that user and key; a type without cephx gives the driver's error on the
// claim; deleting the claim deletes the share.
func TestE2ECephFS(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	if _, err := w.OpenStack.CreateShareTypes(ctx, []framework.ShareTypeSpec{cephFSType, cephFSNoCephxType}); err != nil {
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
	noCephxClass := waitForCephFSClass(t, w, cephFSNoCephxType.Name)
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

	// A CephFS type whose backend grants no cephx access: Manila puts the share's rule in error, the driver gives up waiting for its key, and the claim's events
	// say the provisioning failed (after csi-provisioner's --timeout, 120 s). The claim may bind after
	// that: manila-csi-plugin v1.36.0's retry finds the rule it made and returns it, in error and without
	// a key, as granted (docs/configuration.md, "CephFS"); what is checked is the failure and the rule.
	t.Run("BadInputOnTheClaim", func(t *testing.T) {
		var claims []*corev1.PersistentVolumeClaim
		for _, tc := range []struct{ class, claim string }{{noCephxClass.Name, "no-cephx"}} {
			claims = append(claims, w.CreateClaim(t, ns, tc.claim, tc.class, "1Gi"))
		}
		for _, c := range claims {
			framework.Eventually(t, 4*time.Minute, "the driver's error on claim "+c.Name, func(ctx context.Context) error {
				if events := w.ClaimEvents(ctx, c); !strings.Contains(events, "ProvisioningFailed") {
					return fmt.Errorf("no ProvisioningFailed event yet: %s", events)
				}
				shares, err := w.OpenStack.SharesByMetadata(ctx, map[string]string{
					"csi.storage.k8s.io/pvc/namespace": ns, "csi.storage.k8s.io/pvc/name": c.Name})
				if err != nil || len(shares) == 0 {
					return fmt.Errorf("no share of the claim in Manila (%v)", err)
				}
				rules, err := w.OpenStack.AccessRules(ctx, shares[0].ID)
				if err != nil {
					return err
				}
				if len(rules) != 1 || rules[0].AccessType != "cephx" || rules[0].State != "error" || rules[0].AccessKey != "" {
					return fmt.Errorf("access rules %+v; want one cephx rule in error, without a key", rules)
				}
				return nil
			})
			if err := w.Kube.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, c.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
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
