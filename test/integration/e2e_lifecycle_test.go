package integration

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// lifecycleTypes are the share types seeded in Manila: a plain type, one that names its protocol,
// a private one, one the stale case deletes after its class has proved it works, and one limited to
// the cluster's machine network.
var lifecycleTypes = []framework.ShareTypeSpec{
	{Name: "default"},
	// The test backend reports NFS_CIFS, as Manila's generic drivers do: "<in> NFS" matches it.
	{Name: "Gold_NFS", ExtraSpecs: map[string]string{"storage_protocol": "<in> NFS"}},
	{Name: "private-bronze", Private: true},
	{Name: "doomed"},
	{Name: "cluster-only"},
}

// lifecycleConfig is the operator config an admin writes: clients per class (a list, written with a
// space after the comma, which the driver would pass on to Manila untrimmed; a single address; the
// cluster's machine network; and none: the driver's default), and later Retain for Gold_NFS.
const lifecycleConfig = `storageClasses:
  shareTypes:
    Gold_NFS:
      nfs-shareClient: 10.0.0.0/24, 10.0.1.0/24
    private-bronze:
      nfs-shareClient: 192.168.7.7
    cluster-only:
      nfs-shareClient: machineNetwork
`

// lifecycleMachineNetwork is the install config's machine network and what cluster-only's class and
// shares get from it.
const (
	lifecycleInstallConfig  = "apiVersion: v1\nnetworking:\n  machineNetwork:\n  - cidr: 192.168.5.0/24\n  - cidr: 10.0.0.0/16\n"
	lifecycleMachineNetwork = "10.0.0.0/16,192.168.5.0/24"
)

const lifecycleNamespace = "e2e-lifecycle"

// Claims on every class the operator makes become Manila shares, in one share world (starting one
// costs ~20 s), each case asserting on its own: a claim per class binds to an available share of the
// class's type, size, clients and cluster ID, which goes with the claim; Retain set in the operator
// config keeps the share; a new claim binds after a password rotation; a class whose share type was
// deleted fails its claims with the driver's error and is marked stale; a share type renamed in Manila
// keeps its class, on which a claim binds.
func TestE2EProvisioningLifecycle(t *testing.T) {
	w := shareWorld(t)
	ctx := context.Background()
	ids, err := w.OpenStack.CreateShareTypes(ctx, lifecycleTypes)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteOperatorConfig(t, lifecycleConfig)
	w.WriteInstallConfig(t, lifecycleInstallConfig)
	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	op := w.RunOperator(t)
	classes := map[string]storagev1.StorageClass{}
	for _, st := range lifecycleTypes {
		classes[st.Name] = w.WaitForClassOfShareType(t, st.Name)
	}
	if got := classes["cluster-only"].Parameters["nfs-shareClient"]; got != lifecycleMachineNetwork {
		t.Errorf("cluster-only's class has nfs-shareClient %q, want the machine network %q", got, lifecycleMachineNetwork)
	}
	w.WaitForDeployment(t, nil)
	start := time.Now()
	prov := w.StartProvisioning(t)
	t.Logf("provisioning world up in %s", time.Since(start).Round(time.Millisecond))

	for i, st := range lifecycleTypes {
		t.Run("class/"+st.Name, func(t *testing.T) { claimOnClass(t, w, classes[st.Name], st.Name, i+1) })
	}
	t.Run("retain", func(t *testing.T) { retainedShare(t, w, classes["Gold_NFS"].Name) })
	passwords := []string{framework.SentinelPassword(), framework.SentinelPassword()}
	t.Run("rotation", func(t *testing.T) { rotatePassword(t, w, classes["default"], passwords[0], passwords[1]) })
	t.Run("stale", func(t *testing.T) {
		staleClass(t, w, ids[slices.IndexFunc(lifecycleTypes, isDoomed)], classes["doomed"].Name)
	})
	t.Run("renamed", func(t *testing.T) {
		renamedType(t, w, ids[slices.IndexFunc(lifecycleTypes, isDefault)], classes["default"].Name)
	})

	// The rotated passwords, like the world's own secrets, stay in the two credential Secrets.
	noSecretInLogs(t, w, prov, passwords...)
	for _, p := range passwords {
		if strings.Contains(op.Logs.String(), p) {
			t.Error("the operator's log shows a rotated password")
		}
		if leaks, err := w.FindSentinel(ctx, p); err != nil || len(leaks) > 0 {
			t.Errorf("a rotated password shows in %v (err=%v)", leaks, err)
		}
	}
}

func isDoomed(st framework.ShareTypeSpec) bool { return st.Name == "doomed" }

func isDefault(st framework.ShareTypeSpec) bool { return st.Name == "default" }

// renamedType renames the share type in Manila (microversion 2.50): its class keeps its name with the
// new type, and a claim on it binds to a share of the renamed type.
func renamedType(t *testing.T, w *framework.World, id, className string) {
	const newName = "standard"
	if err := w.OpenStack.RenameShareType(context.Background(), id, newName); err != nil {
		t.Fatal(err)
	}
	class := w.WaitForStorageClass(t, className, func(sc *storagev1.StorageClass) error {
		if sc.Parameters["type"] != newName || sc.Annotations[classplan.ShareTypeIDAnnotation] != id {
			return fmt.Errorf("type %q, annotations %v", sc.Parameters["type"], sc.Annotations)
		}
		return nil
	})
	claimOnClass(t, w, *class, newName, 1)
}

// claimOnClass: a claim of gb GiB binds to an available share as the class asks; deleting the claim
// deletes the share (the default reclaim policy, Delete).
func claimOnClass(t *testing.T, w *framework.World, class storagev1.StorageClass, shareType string, gb int) {
	claim := w.CreateClaim(t, lifecycleNamespace, class.Name, class.Name, fmt.Sprintf("%dGi", gb))
	start := time.Now()
	pv := w.WaitForClaimBound(t, claim)
	share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	t.Logf("claim -> share available in %s", time.Since(start).Round(time.Millisecond))
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete {
		t.Errorf("volume %s reclaim policy %s, want Delete", pv.Name, pv.Spec.PersistentVolumeReclaimPolicy)
	}
	checkShare(t, w, share, class, claim, pv, shareType, gb)
	deleteClaimAndWaitForShareGone(t, w, claim.Namespace, claim.Name, share.ID)
}

// retainedShare sets reclaimPolicy Retain for the class in the operator config, as an admin would;
// once the operator has recreated the class with it, a claim's share outlives the claim and its
// volume is Released.
func retainedShare(t *testing.T, w *framework.World, className string) {
	w.WriteOperatorConfig(t, strings.Replace(lifecycleConfig, "10.0.1.0/24\n", "10.0.1.0/24\n      reclaimPolicy: Retain\n", 1))
	class := w.WaitForStorageClass(t, className, func(sc *storagev1.StorageClass) error {
		if sc.ReclaimPolicy == nil || *sc.ReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
			return fmt.Errorf("reclaimPolicy %v", sc.ReclaimPolicy)
		}
		return nil
	})
	claim := w.CreateClaim(t, lifecycleNamespace, "retained", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	t.Cleanup(func() {
		_ = w.Kube.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	if pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimRetain {
		t.Errorf("volume %s reclaim policy %s, want Retain", pv.Name, pv.Spec.PersistentVolumeReclaimPolicy)
	}
	share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	if err := w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Delete(context.Background(), claim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.ProvisioningTimeout, "volume "+pv.Name+" Released", func(ctx context.Context) error {
		v, err := w.Kube.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if v.Status.Phase != corev1.VolumeReleased {
			return fmt.Errorf("volume is %s", v.Status.Phase)
		}
		return nil
	})
	// With Delete, the share goes within a second or two of the volume's release (class/ cases).
	framework.Consistently(t, 5*time.Second, "share "+share.ID+" kept", func(ctx context.Context) error {
		s, err := w.OpenStack.Share(ctx, share.ID)
		if err != nil {
			return err
		}
		if s.Status != "available" {
			return fmt.Errorf("share is %s", s.Status)
		}
		return nil
	})
}

// rotatePassword switches the credentials to a user of their own with the first password, changes it
// to the second in Keystone and writes the new clouds.yaml, as an admin rotating it would; once the
// operator has synced it into the driver secret (the first no longer logs in), a new claim binds.
func rotatePassword(t *testing.T, w *framework.World, class storagev1.StorageClass, first, second string) {
	ctx := context.Background()
	const user = "rotator"
	clouds, err := w.OpenStack.CreateProjectUser(ctx, user, first, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "the rotator's first password", func(data map[string][]byte) error {
		if string(data["os-userName"]) != user || string(data["os-password"]) != first {
			return fmt.Errorf("os-userName %q, not the rotator's first password", data["os-userName"])
		}
		return nil
	})
	if err := w.OpenStack.SetUserPassword(ctx, user, second); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteCloudCredentials(ctx, bytes.Replace(clouds, []byte(first), []byte(second), 1)); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "the rotated password", func(data map[string][]byte) error {
		if string(data["os-password"]) != second {
			return fmt.Errorf("os-password not rotated yet")
		}
		return nil
	})
	claim := w.CreateClaim(t, lifecycleNamespace, "after-rotation", class.Name, "1Gi")
	pv := w.WaitForClaimBound(t, claim)
	share := w.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	checkShare(t, w, share, class, claim, pv, class.Annotations[classplan.ShareTypeNameAnnotation], 1)
	deleteClaimAndWaitForShareGone(t, w, claim.Namespace, claim.Name, share.ID)
}

// staleClass deletes the class's share type in Manila: the operator marks the class stale (its
// annotation and the Stale condition), and a claim on it stays Pending with the driver's error, that
// the share type is not found, in its events.
func staleClass(t *testing.T, w *framework.World, shareTypeID, className string) {
	ctx := context.Background()
	before, err := w.Kube.StorageV1().StorageClasses().Get(ctx, className, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, marked := before.Annotations[classplan.StaleAnnotation]; marked || w.Condition(t, storageclasses.ConditionStale) != nil {
		t.Fatalf("stale before its share type was deleted: %v", before.Annotations)
	}
	if err := w.OpenStack.DeleteShareType(ctx, shareTypeID); err != nil {
		t.Fatal(err)
	}
	w.WaitForStorageClass(t, className, func(sc *storagev1.StorageClass) error {
		if sc.Annotations[classplan.StaleAnnotation] == "" {
			return fmt.Errorf("not marked stale: %v", sc.Annotations)
		}
		return nil
	})
	if cond := w.WaitForCondition(t, storageclasses.ConditionStale, operatorv1.ConditionTrue); !strings.Contains(cond.Message, className) {
		t.Errorf("Stale condition %q does not list %s", cond.Message, className)
	}

	claim := w.CreateClaim(t, lifecycleNamespace, "on-stale-class", className, "1Gi")
	t.Cleanup(func() {
		_ = w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Delete(context.Background(), claim.Name, metav1.DeleteOptions{})
	})
	framework.Eventually(t, framework.ProvisioningTimeout, "the driver's error on claim "+claim.Name, func(ctx context.Context) error {
		c, err := w.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimPending {
			return fmt.Errorf("claim is %s, want Pending", c.Status.Phase)
		}
		events, err := w.Kube.CoreV1().Events(c.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + c.Name})
		if err != nil {
			return err
		}
		for _, e := range events.Items {
			// The driver's own words come after "rpc error": Manila's 404, "Share type not found."
			_, driverErr, ok := strings.Cut(strings.ToLower(e.Message), "rpc error")
			if e.Reason == "ProvisioningFailed" && ok && strings.Contains(driverErr, "share type not found") {
				t.Logf("claim event: %s", e.Message)
				return nil
			}
		}
		return fmt.Errorf("no ProvisioningFailed event with the driver's error naming the share type; events: %s", w.ClaimEvents(ctx, c))
	})
}
