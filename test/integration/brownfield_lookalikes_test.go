package integration

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// Classes of the driver that look like OpenShift's own Manila operator's but are not, as an admin may
// have made them beside it: one whose secret parameters point at a Secret of the admin's (a claim of
// theirs is bound on it), one whose `type` names a share type Manila does not list. The operator
// starts under its ServiceAccount with them in place and adopts the predecessor's real class of the
// same share type; the lookalikes are not touched (not even their resourceVersion), each is named with
// the field that stopped it by StorageClassControllerNotAdopted and by a StorageClassNotAdopted event,
// nothing is Degraded because they are in nobody's way, and the admin's bound volume and claim are
// not written. Once the lookalikes are deleted the condition goes.
//
// A class with an operator class's name and another provisioner is in the operator's way: that case
// is TestForeignObjectsMatrix's first one (csi-manila-gold, provisioner example.com/other, reported
// by StorageClassControllerDegraded) and is not repeated here.
func TestPredecessorLookalikesAreLeftAlone(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	const shareType = "lookalike_gold"
	createShareType(t, framework.ShareTypeSpec{Name: shareType})

	genuine := framework.PredecessorClass(framework.Predecessor418, shareType)
	foreignSecret := framework.PredecessorClass(framework.Predecessor418, shareType)
	foreignSecret.Name = "lookalike-gold-team-secret"
	foreignSecret.Labels = map[string]string{"admin.example.com/team": "storage"}
	foreignSecret.Annotations = map[string]string{"admin.example.com/note": "our own Manila user"}
	for k := range foreignSecret.Parameters {
		switch {
		case strings.HasSuffix(k, "-secret-name"):
			foreignSecret.Parameters[k] = "team-manila-secrets"
		case strings.HasSuffix(k, "-secret-namespace"):
			foreignSecret.Parameters[k] = "team-storage"
		}
	}
	unknownType := framework.PredecessorClass(framework.Predecessor418, "lookalike_not_in_manila")
	unknownType.Annotations = map[string]string{"admin.example.com/note": "a type of another cloud"}
	// What each lookalike's message must name: the class and the field that stopped it (the secret
	// parameters are checked in key order, so the first foreign one is controller-expand's name).
	lookalikes := map[*storagev1.StorageClass]string{
		foreignSecret: "parameter csi.storage.k8s.io/controller-expand-secret-name",
		unknownType:   "parameter type",
	}

	before := map[string]*storagev1.StorageClass{}
	for _, sc := range []*storagev1.StorageClass{genuine, foreignSecret, unknownType} {
		created, err := world.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before[sc.Name] = created
		t.Cleanup(func() {
			err := world.Kube.StorageV1().StorageClasses().Delete(context.Background(), sc.Name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting StorageClass %s: %v", sc.Name, err)
			}
		})
	}
	// The admin's volume on the class with their own secret, bound as the cluster's binder leaves it.
	// No binder runs here, so any later write to either object is someone else's.
	pv, claim := boundVolume(t, world, "brownfield-lookalikes", foreignSecret.Name)
	t.Cleanup(func() { removeVolume(t, pv, claim) })
	pv, claim = markBound(t, pv, claim)

	deletions := watchDeletions(t)
	degraded := watchDegraded(t)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	// The predecessor's class is adopted: the operator has been through adoption with all classes seen.
	world.WaitForStorageClass(t, genuine.Name, func(sc *storagev1.StorageClass) error {
		if !classplan.Owned(sc) {
			return fmt.Errorf("not adopted yet: labels %v", sc.Labels)
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, storageclasses.ConditionNotAdopted+" naming each lookalike and its field", func(ctx context.Context) error {
		c := world.Condition(t, storageclasses.ConditionNotAdopted)
		if c == nil || c.Status != operatorv1.ConditionTrue || c.Reason != storageclasses.ReasonNotAdoptable {
			return fmt.Errorf("condition %+v", c)
		}
		for sc, field := range lookalikes {
			if !strings.Contains(c.Message, "StorageClass "+sc.Name+": its "+field) {
				return fmt.Errorf("message %q does not name %s and %s", c.Message, sc.Name, field)
			}
		}
		if strings.Contains(c.Message, genuine.Name) {
			return fmt.Errorf("message %q names the adopted class %s", c.Message, genuine.Name)
		}
		return nil
	})
	for sc, field := range lookalikes {
		waitForEvent(t, "StorageClassNotAdopted", "StorageClass "+sc.Name+": its "+field)
	}

	for sc := range lookalikes {
		now, err := world.Kube.StorageV1().StorageClasses().Get(ctx, sc.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		was := before[sc.Name]
		switch {
		case now.UID != was.UID || now.ResourceVersion != was.ResourceVersion:
			t.Errorf("StorageClass %s was written: UID %s -> %s, resourceVersion %s -> %s", sc.Name, was.UID, now.UID, was.ResourceVersion, now.ResourceVersion)
		case classplan.Owned(now) || !maps.Equal(now.Parameters, sc.Parameters) || !maps.Equal(now.Labels, sc.Labels) || !maps.Equal(now.Annotations, sc.Annotations):
			t.Errorf("StorageClass %s changed: labels %v, annotations %v, parameters %v", sc.Name, now.Labels, now.Annotations, now.Parameters)
		}
	}
	nowPV, err := world.Kube.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nowPV.UID != pv.UID || nowPV.ResourceVersion != pv.ResourceVersion {
		t.Errorf("the admin's PersistentVolume was written: UID %s -> %s, resourceVersion %s -> %s (class %s, phase %s, deleting %v)",
			pv.UID, nowPV.UID, pv.ResourceVersion, nowPV.ResourceVersion, nowPV.Spec.StorageClassName, nowPV.Status.Phase, nowPV.DeletionTimestamp)
	}
	nowClaim, err := world.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Get(ctx, claim.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nowClaim.UID != claim.UID || nowClaim.ResourceVersion != claim.ResourceVersion {
		t.Errorf("the admin's claim was written: UID %s -> %s, resourceVersion %s -> %s (volume %s, phase %s, deleting %v)",
			claim.UID, nowClaim.UID, claim.ResourceVersion, nowClaim.ResourceVersion, nowClaim.Spec.VolumeName, nowClaim.Status.Phase, nowClaim.DeletionTimestamp)
	}
	if got := deletions(); len(got) > 0 {
		t.Errorf("deleted while the lookalikes were in place: %v", got)
	}
	if got := degraded(); len(got) > 0 {
		t.Errorf("Degraded with the lookalikes in place: %v", got)
	}

	for sc := range lookalikes {
		if err := world.Kube.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	framework.Eventually(t, framework.DefaultTimeout, storageclasses.ConditionNotAdopted+" removed", func(ctx context.Context) error {
		c := world.Condition(t, storageclasses.ConditionNotAdopted)
		if c != nil {
			return fmt.Errorf("still there: %s (%s): %s", c.Status, c.Reason, c.Message)
		}
		return nil
	})
}

// markBound completes the binding as kube-controller-manager's binder would: the volume's claimRef
// carries the claim's UID, and both are Bound.
func markBound(t *testing.T, pv *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) (*corev1.PersistentVolume, *corev1.PersistentVolumeClaim) {
	t.Helper()
	ctx := context.Background()
	volumes, claims := world.Kube.CoreV1().PersistentVolumes(), world.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace)
	pv.Spec.ClaimRef.UID = claim.UID
	pv, err := volumes.Update(ctx, pv, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pv.Status.Phase = corev1.VolumeBound
	if pv, err = volumes.UpdateStatus(ctx, pv, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	claim.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: pv.Spec.AccessModes, Capacity: pv.Spec.Capacity}
	if claim, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	return pv, claim
}

// removeVolume deletes the claim and its volume for good: no protection controller runs to take
// their finalizers off, and a later test must not find them.
func removeVolume(t *testing.T, pv *corev1.PersistentVolume, claim *corev1.PersistentVolumeClaim) {
	ctx := context.Background()
	noFinalizers := []byte(`{"metadata":{"finalizers":null}}`)
	check := func(err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing the admin's volume: %v", err)
		}
	}
	claims, volumes := world.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace), world.Kube.CoreV1().PersistentVolumes()
	check(claims.Delete(ctx, claim.Name, metav1.DeleteOptions{}))
	_, err := claims.Patch(ctx, claim.Name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
	check(err)
	check(volumes.Delete(ctx, pv.Name, metav1.DeleteOptions{}))
	_, err = volumes.Patch(ctx, pv.Name, types.MergePatchType, noFinalizers, metav1.PatchOptions{})
	check(err)
}
