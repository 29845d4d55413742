package integration

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

func updateClass(t *testing.T, name string, mutate func(*storagev1.StorageClass)) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "editing StorageClass "+name, func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(sc)
		_, err = world.Kube.StorageV1().StorageClasses().Update(ctx, sc, metav1.UpdateOptions{})
		return err
	})
}

func expansion(want bool) func(*storagev1.StorageClass) error {
	return func(sc *storagev1.StorageClass) error {
		if sc.AllowVolumeExpansion == nil || *sc.AllowVolumeExpansion != want {
			return fmt.Errorf("allowVolumeExpansion %v, want %v", sc.AllowVolumeExpansion, want)
		}
		return nil
	}
}

func setState(t *testing.T, state operatorv1.StorageClassStateName) {
	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.StorageClassState = state })
}

// Managed reverts edits; Unmanaged keeps edits but creates missing classes; Removed deletes the
// operator's classes and leaves foreign ones; back to Managed recreates them. Every transition between
// the three states is taken once.
func TestStorageClassStateTransitions(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	foreign := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "csi-manila-admin-own"}, Provisioner: names.CSIDriverName}
	if _, err := world.Kube.StorageV1().StorageClasses().Create(context.Background(), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.StorageV1().StorageClasses().Delete(context.Background(), foreign.Name, metav1.DeleteOptions{})
	})

	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	world.WaitForStorageClass(t, "csi-manila-silver", nil)

	updateClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) { f := false; sc.AllowVolumeExpansion = &f })
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))

	setState(t, operatorv1.UnmanagedStorageClass)
	framework.Eventually(t, framework.DefaultTimeout, "observedGeneration", observedCurrentGeneration)
	updateClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) { f := false; sc.AllowVolumeExpansion = &f })
	if err := world.Kube.StorageV1().StorageClasses().Delete(context.Background(), "csi-manila-silver", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	framework.Consistently(t, 3*time.Second, "Unmanaged keeps the edit", func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-gold", metav1.GetOptions{})
		if err != nil {
			return err
		}
		return expansion(false)(sc)
	})

	setState(t, operatorv1.RemovedStorageClass)
	world.WaitForNoStorageClass(t, "csi-manila-gold")
	world.WaitForNoStorageClass(t, "csi-manila-silver")
	if _, err := world.Kube.StorageV1().StorageClasses().Get(context.Background(), foreign.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("Removed touched a foreign class: %v", err)
	}

	setState(t, operatorv1.ManagedStorageClass)
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	world.WaitForStorageClass(t, "csi-manila-silver", nil)

	// The remaining transitions: Managed -> Removed -> Unmanaged (creates the missing classes) -> Managed.
	setState(t, operatorv1.RemovedStorageClass)
	world.WaitForNoStorageClass(t, "csi-manila-gold")
	setState(t, operatorv1.UnmanagedStorageClass)
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	updateClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) { f := false; sc.AllowVolumeExpansion = &f })
	setState(t, operatorv1.ManagedStorageClass)
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
}

func observedCurrentGeneration(ctx context.Context) error {
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if d.Status.ObservedGeneration != d.Generation {
		return fmt.Errorf("observedGeneration %d, generation %d", d.Status.ObservedGeneration, d.Generation)
	}
	return nil
}

func waitForEvent(t *testing.T, reason, contains string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "event "+reason, func(ctx context.Context) error {
		list, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if e.Reason == reason && strings.Contains(e.Message, contains) {
				return nil
			}
		}
		return fmt.Errorf("no %s event mentioning %q", reason, contains)
	})
}

// A copy of the operator's class under another name, with its labels and annotations (what
// `kubectl get -o yaml` and a rename give, and what the upstream storage suite makes of the class it
// tests), is the admin's: the operator never writes it (a sync after it appeared reverts an edit of
// the operator's own class and leaves the copy's differing allowVolumeExpansion), the share type's
// class stays the operator's, and Removed deletes only the operator's class.
func TestACopyOfTheOperatorsClassIsTheAdmins(t *testing.T) {
	ctx := context.Background()
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	original := world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	copied := original.DeepCopy()
	copied.ObjectMeta = metav1.ObjectMeta{Name: "gold-copy", Labels: original.Labels, Annotations: original.Annotations}
	copied.AllowVolumeExpansion = new(bool)
	made, err := world.Kube.StorageV1().StorageClasses().Create(ctx, copied, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = world.Kube.StorageV1().StorageClasses().Delete(ctx, made.Name, metav1.DeleteOptions{}) })
	unwritten := func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, made.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if sc.ResourceVersion != made.ResourceVersion {
			return fmt.Errorf("the copy was written: %v", sc)
		}
		return nil
	}

	updateClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) { sc.AllowVolumeExpansion = new(bool) })
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	if err := unwritten(ctx); err != nil {
		t.Fatal(err)
	}

	setState(t, operatorv1.RemovedStorageClass)
	world.WaitForNoStorageClass(t, "csi-manila-gold")
	if err := unwritten(ctx); err != nil {
		t.Fatal(err)
	}
	setState(t, operatorv1.ManagedStorageClass)
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	if err := unwritten(ctx); err != nil {
		t.Fatal(err)
	}
}

// A share type that disappears leaves its class, marked and listed; with pruning configured the class
// goes after that many successful listings.
func TestStaleStorageClassMarkedThenPruned(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "keep"})
	id, err := world.OpenStack.CreateShareType(context.Background(), framework.ShareTypeSpec{Name: "bronze"})
	if err != nil {
		t.Fatal(err)
	}
	world.WaitForStorageClass(t, "csi-manila-bronze", nil)
	if err := world.OpenStack.DeleteShareType(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	world.WaitForStorageClass(t, "csi-manila-bronze", func(sc *storagev1.StorageClass) error {
		if sc.Annotations[classplan.StaleAnnotation] == "" {
			return fmt.Errorf("not marked stale: %v", sc.Annotations)
		}
		return nil
	})
	cond := world.WaitForCondition(t, storageclasses.ConditionStale, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "csi-manila-bronze") {
		t.Errorf("Stale condition %q does not list the class", cond.Message)
	}
	world.WriteOperatorConfig(t, "storageClasses:\n  prune: true\n  pruneAfterListings: 2\n")
	world.WaitForNoStorageClass(t, "csi-manila-bronze")
	world.WaitForNoCondition(t, storageclasses.ConditionStale)
	world.WaitForStorageClass(t, "csi-manila-keep", nil)
}

// CEPHFS-only types get no class (an event says why); a DHSS type needs a share network: without one
// it is skipped with an event and a condition, with one its class carries shareNetworkID.
func TestShareTypeFilters(t *testing.T) {
	startOperator(t, "",
		framework.ShareTypeSpec{Name: "plain"},
		framework.ShareTypeSpec{Name: "cephonly", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}},
		framework.ShareTypeSpec{Name: "dhss", DHSS: true})
	world.WaitForStorageClass(t, "csi-manila-plain", nil)
	waitForEvent(t, "ShareTypeSkipped", "cephonly")
	waitForEvent(t, "ShareTypeSkipped", "dhss")
	cond := world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "storageClasses.shareTypes.dhss.shareNetworkID") {
		t.Errorf("condition %q does not say how to fix the DHSS type", cond.Message)
	}
	for _, name := range []string{"csi-manila-cephonly", "csi-manila-dhss"} {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s exists (err=%v)", name, err)
		}
	}

	world.WriteOperatorConfig(t, "storageClasses:\n  shareTypes:\n    dhss:\n      shareNetworkID: net-42\n")
	world.WaitForStorageClass(t, "csi-manila-dhss", func(sc *storagev1.StorageClass) error {
		if sc.Parameters["shareNetworkID"] != "net-42" {
			return fmt.Errorf("parameters %v", sc.Parameters)
		}
		return nil
	})
	world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionFalse)
}

// Config defaults and per-type overrides reach the classes; an immutable change recreates only the
// operator's class and says so; an invalid config is reported by field path and changes nothing.
func TestOperatorConfigOverridesAndErrors(t *testing.T) {
	startOperator(t, `
storageClasses:
  defaultShareType: gold
  defaults:
    nfs-shareClient: 10.0.0.0/8
    mountOptions: [nfsvers=4.1]
  shareTypes:
    silver:
      allowVolumeExpansion: false
      volumeBindingMode: WaitForFirstConsumer
`, framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	world.WaitForStorageClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) error {
		if sc.Annotations[classplan.DefaultClassAnnotation] != "true" || sc.Parameters["nfs-shareClient"] != "10.0.0.0/8" ||
			len(sc.MountOptions) != 1 || sc.MountOptions[0] != "nfsvers=4.1" {
			return fmt.Errorf("gold: %+v", sc)
		}
		return nil
	})
	silver := world.WaitForStorageClass(t, "csi-manila-silver", func(sc *storagev1.StorageClass) error {
		if *sc.AllowVolumeExpansion || string(*sc.VolumeBindingMode) != "WaitForFirstConsumer" {
			return fmt.Errorf("silver: %+v", sc)
		}
		if _, isDefault := sc.Annotations[classplan.DefaultClassAnnotation]; isDefault {
			return fmt.Errorf("silver is marked default")
		}
		return nil
	})

	world.WriteOperatorConfig(t, "storageClasses:\n  defaults:\n    nfs-shareClient: 10.0.0.0/8\n    shareNetworkId: typo\n")
	cond := world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "storageClasses.defaults.shareNetworkId") {
		t.Errorf("config condition %q does not name the field path", cond.Message)
	}
	framework.Consistently(t, 3*time.Second, "classes keep the last valid config", func(ctx context.Context) error {
		sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-silver", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if sc.UID != silver.UID || *sc.AllowVolumeExpansion {
			return fmt.Errorf("silver changed under an invalid config")
		}
		return nil
	})

	world.WriteOperatorConfig(t, "storageClasses:\n  shareTypes:\n    silver:\n      reclaimPolicy: Retain\n")
	world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForStorageClass(t, "csi-manila-silver", func(sc *storagev1.StorageClass) error {
		if sc.UID == silver.UID || string(*sc.ReclaimPolicy) != "Retain" {
			return fmt.Errorf("not recreated with Retain yet")
		}
		return nil
	})
	waitForEvent(t, "StorageClassRecreated", "csi-manila-silver")
}

// A poll that finds nothing new writes nothing to kube-apiserver and asks Keystone nothing.
func TestNoOpPollWritesNothing(t *testing.T) {
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	world.WaitForDeployment(t, nil)
	world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionFalse)

	settledWorkloads(t)
	listRequests := func() int {
		n := 0
		for _, r := range op.Requests.Log() {
			if strings.HasPrefix(r, "GET ") && strings.HasSuffix(r, "/v2/types") {
				n++
			}
		}
		return n
	}
	// Converged first: a whole poll interval without a write (on a loaded machine the status may still be
	// finishing when the conditions above are met). An operator that writes on every poll never gets here.
	lastWrites, lastPolls := len(op.KubeRequests.Writes()), listRequests()
	framework.Eventually(t, 2*framework.DefaultTimeout, "a poll without writes", func(context.Context) error {
		writes, polls := len(op.KubeRequests.Writes()), listRequests()
		if writes == lastWrites && polls > lastPolls {
			return nil
		}
		if writes != lastWrites {
			lastWrites, lastPolls = writes, polls
		}
		return fmt.Errorf("%d writes so far", writes)
	})
	// One baseline, never reset: five whole polls after it, not a single write.
	kubeWrites, keystone, polls := len(op.KubeRequests.Writes()), world.OpenStackKeystoneRequests(op), listRequests()
	framework.Eventually(t, 2*framework.DefaultTimeout, "five polls", func(context.Context) error {
		if n := listRequests() - polls; n < 5 {
			return fmt.Errorf("%d polls so far", n)
		}
		return nil
	})
	if n := world.OpenStackKeystoneRequests(op) - keystone; n != 0 {
		t.Errorf("%d Keystone requests during no-op polls", n)
	}
	if writes := op.KubeRequests.Writes(); len(writes) != kubeWrites {
		t.Errorf("kube-apiserver writes during five no-op polls: %v", writes[kubeWrites:])
	}
}

// Credentials without the admin role see only the project's share types: the operator says so once
// in an event, not again at each later login with the same credentials (the catalog refresh is
// shortened to make those happen), and the private type of another project gets no class.
func TestNonAdminCredentialsSeePublicTypes(t *testing.T) {
	ctx := context.Background()
	clouds, err := world.OpenStack.CreateProjectMember(ctx, "member-"+fmt.Sprint(time.Now().UnixNano()), "member-pass")
	if err != nil {
		t.Fatal(err)
	}
	restoreCredentials(t)
	if err := world.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	opts, counter := framework.OperatorOptions()
	opts.CatalogRefresh = 3 * time.Second
	started := time.Now().Truncate(time.Second) // events have seconds; earlier tests' stay in the namespace
	startOperatorWith(t, opts, counter, "", framework.ShareTypeSpec{Name: "public-one"}, framework.ShareTypeSpec{Name: "hidden-one", Private: true})
	world.WaitForStorageClass(t, "csi-manila-public-one", nil)
	waitForEvent(t, "PrivateShareTypesHidden", "no admin role")
	logins := func() int {
		n := 0
		for _, o := range counter.Outcomes() {
			if strings.HasPrefix(o.Request, "POST ") && strings.HasSuffix(o.Request, "/v3/auth/tokens") && o.Status == http.StatusCreated {
				n++
			}
		}
		return n
	}
	seen := logins()
	framework.Eventually(t, framework.DefaultTimeout, "two more logins with the same credentials", func(context.Context) error {
		if n := logins(); n < seen+2 {
			return fmt.Errorf("%d logins since the event, want 2", n-seen)
		}
		return nil
	})
	list, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hidden := int32(0)
	for _, e := range list.Items {
		if e.Reason == "PrivateShareTypesHidden" && !e.CreationTimestamp.Before(&metav1.Time{Time: started}) {
			hidden += max(e.Count, 1)
		}
	}
	if hidden != 1 {
		t.Errorf("PrivateShareTypesHidden sent %d times for one set of credentials, want once", hidden)
	}
	if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-hidden-one", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a private type invisible to the credentials got a class (err=%v)", err)
	}
}
