package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// An admin-made class with the operator's owner label and no annotations at all (so no share type)
// is marked stale like any owned class whose type is gone; the sync does not die on it, so a share
// type created afterwards still gets its class, and Degraded stays False throughout.
func TestOwnedClassWithoutAnnotations(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	bare := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-admin-made",
		Labels: map[string]string{classplan.OwnerLabel: classplan.OwnerLabelValue}}, Provisioner: names.CSIDriverName}
	if _, err := world.Kube.StorageV1().StorageClasses().Create(context.Background(), bare, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.StorageV1().StorageClasses().Delete(context.Background(), bare.Name, metav1.DeleteOptions{})
	})
	world.WaitForStorageClass(t, bare.Name, func(sc *storagev1.StorageClass) error {
		if _, ok := sc.Annotations[classplan.StaleAnnotation]; !ok {
			return fmt.Errorf("not marked stale: %v", sc.Annotations)
		}
		return nil
	})
	createShareType(t, framework.ShareTypeSpec{Name: "silver"})
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	framework.Consistently(t, 2*time.Second, "no Degraded", func(ctx context.Context) error {
		if c := world.Condition(t, storageclasses.ConditionDegraded); c != nil && c.Status == operatorv1.ConditionTrue {
			return fmt.Errorf("%s: %s", c.Reason, c.Message)
		}
		return nil
	})
}

// A listing that may lack private share types (credentials that lost the admin role, or a 403 on the
// full listing) never prunes nor marks stale: with prune after one listing, the class of a private
// type created under admin credentials survives many polls under member credentials.
func TestPartialListingNeverPrunes(t *testing.T) {
	ctx := context.Background()
	startOperator(t, "storageClasses:\n  prune: true\n  pruneAfterListings: 1\n",
		framework.ShareTypeSpec{Name: "open"}, framework.ShareTypeSpec{Name: "secretive", Private: true})
	world.WaitForStorageClass(t, "csi-manila-secretive", nil)
	clouds, err := world.OpenStack.CreateProjectMember(ctx, "member-"+fmt.Sprint(time.Now().UnixNano()), "member-pass")
	if err != nil {
		t.Fatal(err)
	}
	restoreCredentials(t)
	if err := world.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	waitForEvent(t, "PrivateShareTypesHidden", "no admin role")
	framework.Consistently(t, 12*time.Second, "the private type's class is kept, unmarked (two polls and more)", func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-secretive", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, marked := sc.Annotations[classplan.StaleAnnotation]; marked {
			return fmt.Errorf("marked stale from a partial listing")
		}
		return nil
	})
}

// Never two default classes: with a foreign default in the cluster, the config's default class gets
// "false" and an event names the other default; once that goes, ours becomes the default. An admin's
// value on our class is kept; switching defaultShareType moves the operator's own default.
func TestDefaultStorageClassNeverTwice(t *testing.T) {
	ctx := context.Background()
	foreign := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard-default",
		Annotations: map[string]string{classplan.DefaultClassAnnotation: "true"}}, Provisioner: "example.com/other"}
	if _, err := world.Kube.StorageV1().StorageClasses().Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.StorageV1().StorageClasses().Delete(context.Background(), foreign.Name, metav1.DeleteOptions{})
	})
	isDefault := func(want string) func(*storagev1.StorageClass) error {
		return func(sc *storagev1.StorageClass) error {
			if got, ok := sc.Annotations[classplan.DefaultClassAnnotation]; got != want || (want == "" && ok) {
				return fmt.Errorf("is-default-class %q (present %v), want %q", got, ok, want)
			}
			return nil
		}
	}
	startOperator(t, "storageClasses:\n  defaultShareType: gold\n", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	world.WaitForStorageClass(t, "csi-manila-gold", isDefault("false"))
	waitForEvent(t, "DefaultStorageClass", "standard-default is already the cluster's default")

	if err := world.Kube.StorageV1().StorageClasses().Delete(ctx, foreign.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForStorageClass(t, "csi-manila-gold", isDefault("true"))

	world.WriteOperatorConfig(t, "storageClasses:\n  defaultShareType: silver\n")
	world.WaitForStorageClass(t, "csi-manila-silver", isDefault("true"))
	world.WaitForStorageClass(t, "csi-manila-gold", isDefault(""))

	// The admin takes over: "false" on silver stays, whatever the config says.
	updateClass(t, "csi-manila-silver", func(sc *storagev1.StorageClass) {
		sc.Annotations[classplan.DefaultClassAnnotation] = "false"
		delete(sc.Annotations, classplan.DefaultManagedAnnotation)
	})
	framework.Consistently(t, 6*time.Second, "the admin's value stays", func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-silver", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return isDefault("false")(sc)
	})
}

// With Gold_NFS and gold-nfs both present, deleting Gold_NFS neither repoints Gold_NFS's class at
// gold-nfs nor strands gold-nfs's own class: each class serves the share type it was created for.
func TestClassNeverRepointedToAnotherShareType(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "Gold_NFS"})
	first := world.WaitForStorageClass(t, "csi-manila-gold-nfs", nil)
	secondID := createShareType(t, framework.ShareTypeSpec{Name: "gold-nfs"})
	var second *storagev1.StorageClass
	framework.Eventually(t, framework.DefaultTimeout, "gold-nfs's own class", func(ctx context.Context) error {
		owned, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		for _, sc := range owned {
			if sc.Annotations[classplan.ShareTypeIDAnnotation] == secondID {
				second = sc.DeepCopy()
				return nil
			}
		}
		return fmt.Errorf("none among %d owned classes", len(owned))
	})
	if err := world.OpenStack.DeleteShareType(context.Background(), first.Annotations[classplan.ShareTypeIDAnnotation]); err != nil {
		t.Fatal(err)
	}
	world.WaitForStorageClass(t, first.Name, func(sc *storagev1.StorageClass) error {
		if _, ok := sc.Annotations[classplan.StaleAnnotation]; !ok {
			return fmt.Errorf("not marked stale yet")
		}
		return nil
	})
	framework.Consistently(t, 11*time.Second, "both classes keep their share types (two polls)", func(ctx context.Context) error {
		for _, want := range []*storagev1.StorageClass{first, second} {
			sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, want.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if sc.UID != want.UID || sc.Parameters["type"] != want.Parameters["type"] {
				return fmt.Errorf("%s was recreated or repointed: type %s -> %s", want.Name, want.Parameters["type"], sc.Parameters["type"])
			}
		}
		return nil
	})
}
