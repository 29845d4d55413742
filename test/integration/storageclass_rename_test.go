package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// A share type renamed in Manila (PUT /v2/types/{id}, microversion 2.50) keeps its class: the same
// name, recreated with `type` the new name and a ShareTypeRenamed event; never marked stale, never a
// second class for the new name, over several polls. The recreate carries the admin's metadata over:
// a label of theirs and the default-class annotation they set by hand.
func TestRenamedShareTypeKeepsItsClass(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "keep"})
	id := createShareType(t, framework.ShareTypeSpec{Name: "gold"})
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	before := markByAdmin(t, "csi-manila-gold")

	if err := world.OpenStack.RenameShareType(context.Background(), id, "platinum"); err != nil {
		t.Fatal(err)
	}
	renamed := waitForRenamedClass(t, "csi-manila-gold", id, "platinum")
	if renamed.UID == before.UID {
		t.Errorf("class %s was not recreated (UID %s): its type parameter cannot change in place", renamed.Name, renamed.UID)
	}
	if renamed.Labels["team"] != "storage" || renamed.Annotations[classplan.DefaultClassAnnotation] != "true" {
		t.Errorf("the recreate dropped the admin's metadata: labels %v, annotations %v", renamed.Labels, renamed.Annotations)
	}
	waitForEvent(t, "ShareTypeRenamed", fmt.Sprintf(`Share type %s was renamed from "gold" to "platinum" in Manila: recreated StorageClass csi-manila-gold`, id))

	framework.Consistently(t, 3*framework.PollInterval, "one class for the renamed type, not stale", func(ctx context.Context) error {
		return oneCurrentClass(ctx, "csi-manila-gold", id, "platinum", "csi-manila-platinum")
	})
	world.WaitForStorageClass(t, "csi-manila-keep", nil)
}

// markByAdmin adds a label and the default-class annotation to a class, as an admin does by hand,
// and returns the class as updated.
func markByAdmin(t *testing.T, name string) *storagev1.StorageClass {
	t.Helper()
	var updated *storagev1.StorageClass
	framework.Eventually(t, framework.DefaultTimeout, "the admin's edit of "+name, func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		sc.Labels["team"] = "storage"
		sc.Annotations[classplan.DefaultClassAnnotation] = "true"
		updated, err = world.Kube.StorageV1().StorageClasses().Update(ctx, sc, metav1.UpdateOptions{})
		return err
	})
	return updated
}

// waitForRenamedClass waits until the class serves the share type under its new name.
func waitForRenamedClass(t *testing.T, name, id, newName string) *storagev1.StorageClass {
	t.Helper()
	return world.WaitForStorageClass(t, name, func(sc *storagev1.StorageClass) error {
		if sc.Parameters["type"] != newName || sc.Annotations[classplan.ShareTypeNameAnnotation] != newName ||
			sc.Annotations[classplan.ShareTypeIDAnnotation] != id {
			return fmt.Errorf("type %q, annotations %v", sc.Parameters["type"], sc.Annotations)
		}
		return nil
	})
}

// oneCurrentClass: the class is the only owned class of the share type, it is not marked stale, the
// Stale condition does not name it, and no class exists under the new name's plain mapping.
func oneCurrentClass(ctx context.Context, name, id, newName, plainNewName string) error {
	list, err := world.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{
		LabelSelector: classplan.OwnerLabel + "=" + classplan.OwnerLabelValue})
	if err != nil {
		return err
	}
	var ofType []string
	for _, sc := range list.Items {
		if sc.Annotations[classplan.ShareTypeIDAnnotation] == id {
			ofType = append(ofType, sc.Name)
			if _, stale := sc.Annotations[classplan.StaleAnnotation]; stale {
				return fmt.Errorf("class %s marked stale: %v", sc.Name, sc.Annotations)
			}
			if sc.Parameters["type"] != newName {
				return fmt.Errorf("class %s has type %q", sc.Name, sc.Parameters["type"])
			}
		}
	}
	if len(ofType) != 1 || ofType[0] != name {
		return fmt.Errorf("classes of share type %s: %v, want only %s", id, ofType, name)
	}
	if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, plainNewName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("a class %s for the new name exists (err=%v)", plainNewName, err)
	}
	driver, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if c := v1helpers.FindOperatorCondition(driver.Status.Conditions, storageclasses.ConditionStale); c != nil &&
		c.Status == operatorv1.ConditionTrue && strings.Contains(c.Message, name) {
		return fmt.Errorf("%s: %s", storageclasses.ConditionStale, c.Message)
	}
	return nil
}
