package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

var (
	volumeSnapshotGVR = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshots"}
	snapshotClassGVR  = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}
)

// Taking over a cluster that OpenShift's own Manila operator runs, as an admin replacing it would:
// its classes (one with a bound claim, one the admin's default), CSIDriver, VolumeSnapshotClass (a
// snapshot names it), workloads and driver secret are in place; then this operator starts under its
// ServiceAccount. Nothing is Degraded at any moment, nothing that runs pods is deleted, every object
// keeps its UID (a <=4.17 class is recreated once, for the controller-expand secret it lacks, with an
// event naming it and the field), the admin's metadata stays, a new claim on an adopted class binds,
// and once this operator stops the objects are as the predecessor can manage them again.
func TestTakeOverFromOpenShiftsManilaOperator(t *testing.T) {
	w := shareWorld(t)
	for _, p := range []framework.Predecessor{framework.Predecessor417, framework.Predecessor418} {
		t.Run(string(p), func(t *testing.T) { takeOver(t, w, p) })
	}
}

func takeOver(t *testing.T, w *framework.World, p framework.Predecessor) {
	ctx := context.Background()
	w.ResetOperand(t)
	w.ResetStorageClasses(t)
	// Share types of their own per release: a type that still has shares cannot be deleted between runs.
	sfx := "_" + strings.ReplaceAll(string(p), ".", "")
	types := []string{"default" + sfx, "gold_nfs" + sfx, "silver" + sfx}
	for _, name := range types {
		id, err := w.OpenStack.CreateShareType(ctx, framework.ShareTypeSpec{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.OpenStack.DeleteShareType(context.Background(), id) })
	}
	before := map[string]uid{}
	for _, name := range types {
		sc := framework.PredecessorClass(p, name)
		if name == "silver"+sfx { // the admin's default, and a label of theirs
			sc.Annotations = map[string]string{classplan.DefaultClassAnnotation: "true"}
			sc.Labels = map[string]string{"admin.example.com/team": "storage"}
		}
		created, err := w.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before["StorageClass/"+sc.Name] = uid(created.UID)
		t.Cleanup(func() {
			_ = w.Kube.StorageV1().StorageClasses().Delete(context.Background(), sc.Name, metav1.DeleteOptions{})
		})
	}
	w.SeedPredecessor(t, p)
	ns := "brownfield-" + strings.ReplaceAll(string(p), ".", "-")
	pv, claim := boundVolume(t, w, ns, framework.PredecessorClassName("gold_nfs"+sfx))
	snapshot := volumeSnapshot(t, w, ns, claim.Name)
	for key, uid := range predecessorUIDs(t, w) {
		before[key] = uid
	}
	deletions := watchDeletions(t)
	degraded := watchDegraded(t)

	w.CreateClusterCSIDriver(t, operatorv1.Managed)
	// What the predecessor left on the ClusterCSIDriver: conditions of its own that nobody else writes.
	left := predecessorConditions(p)
	w.SetDriverConditions(t, left...)
	op := w.RunOperator(t)
	w.WaitForDeployment(t, driverImageIs(driverImage))
	for _, name := range types {
		class := framework.PredecessorClassName(name)
		sc := w.WaitForStorageClass(t, class, func(sc *storagev1.StorageClass) error {
			if !classplan.Owned(sc) || sc.Parameters["csi.storage.k8s.io/controller-expand-secret-name"] != names.DriverSecret {
				return fmt.Errorf("not adopted yet: labels %v, parameters %v", sc.Labels, sc.Parameters)
			}
			return nil
		})
		switch recreated := before["StorageClass/"+class] != uid(sc.UID); {
		case p == framework.Predecessor418 && recreated:
			t.Errorf("StorageClass %s was recreated; a 4.18 class needs no change of an immutable field", class)
		case p == framework.Predecessor417 && !recreated:
			t.Errorf("StorageClass %s kept its UID without controller-expand-secret-*", class)
		case p == framework.Predecessor417:
			waitForEventMentioning(t, class, "controller-expand-secret")
		}
		if name == "silver"+sfx && (sc.Annotations[classplan.DefaultClassAnnotation] != "true" || sc.Labels["admin.example.com/team"] != "storage") {
			t.Errorf("StorageClass %s lost the admin's metadata: labels %v, annotations %v", class, sc.Labels, sc.Annotations)
		}
	}
	if defaults := defaultClasses(t, w); !slices.Equal(defaults, []string{framework.PredecessorClassName("silver" + sfx)}) {
		t.Errorf("default classes %v, want only the admin's", defaults)
	}
	for key, uid := range predecessorUIDs(t, w) {
		if before[key] != uid {
			t.Errorf("%s was recreated (UID %s -> %s)", key, before[key], uid)
		}
	}
	w.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		if ds.Annotations["operator.openshift.io/spec-hash"] == "" {
			return fmt.Errorf("not applied by the operator yet")
		}
		return nil
	})

	// The claims: the admin's keeps its volume, a new one on an adopted class binds through the driver.
	w.StartProvisioning(t)
	if got := w.WaitForClaimBound(t, claim); got.UID != pv.UID {
		t.Errorf("the admin's claim is bound to %s, was %s", got.Name, pv.Name)
	}
	w.WaitForClaimBound(t, w.CreateClaim(t, ns, "new", framework.PredecessorClassName("default"+sfx), "1Gi"))
	if _, err := w.Dynamic.Resource(volumeSnapshotGVR).Namespace(ns).Get(ctx, snapshot, metav1.GetOptions{}); err != nil {
		t.Errorf("VolumeSnapshot %s/%s: %v", ns, snapshot, err)
	}
	for _, d := range deletions() {
		if !strings.HasPrefix(d, "StorageClass/") || p != framework.Predecessor417 {
			t.Errorf("%s was deleted during the takeover", d)
		}
	}
	if got := degraded(); len(got) > 0 {
		t.Errorf("Degraded during the takeover: %v", got)
	}

	framework.Eventually(t, framework.DefaultTimeout, "the predecessor's conditions removed", func(ctx context.Context) error {
		cr, err := w.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range left {
			if v1helpers.FindOperatorCondition(cr.Status.Conditions, c.Type) != nil {
				return fmt.Errorf("%s is still there", c.Type)
			}
		}
		return nil
	})

	// The hand-back: the predecessor's leader takes its lease (a rollback to its image) and reports.
	w.PredecessorTakesItsLease(t, p, "predecessor-pod_"+string(p))
	w.SetDriverConditions(t, predecessorAvailable(p))
	framework.Eventually(t, framework.DefaultTimeout, "this operator's conditions handed back", func(ctx context.Context) error {
		return oursLeft(ctx, w, p)
	})
	op.Stop()
	handedBack(t, w, p)
}

// predecessorConditions are conditions only predecessor p writes, as it leaves them.
func predecessorConditions(p framework.Predecessor) []operatorv1.OperatorCondition {
	if p == framework.Predecessor417 {
		return []operatorv1.OperatorCondition{{Type: "SecretSyncDegraded", Status: operatorv1.ConditionFalse},
			{Type: "ResourceSyncControllerDegraded", Status: operatorv1.ConditionFalse}}
	}
	return []operatorv1.OperatorCondition{{Type: "OpenStackManilaDriverControllerServiceControllerAvailable", Status: operatorv1.ConditionFalse},
		{Type: "OpenStackManilaDriverNodeServiceControllerProgressing", Status: operatorv1.ConditionTrue}}
}

// predecessorAvailable is an Available condition predecessor p writes once it leads.
func predecessorAvailable(p framework.Predecessor) operatorv1.OperatorCondition {
	if p == framework.Predecessor417 {
		return operatorv1.OperatorCondition{Type: "ManilaDriverControllerServiceControllerAvailable", Status: operatorv1.ConditionTrue}
	}
	return operatorv1.OperatorCondition{Type: "OpenStackManilaDriverControllerServiceControllerAvailable", Status: operatorv1.ConditionTrue}
}

// predecessorWrites are the condition types predecessor p writes itself, of those this operator writes
// too (docs/conditions.md): after a hand-back these may stay, the predecessor keeps them up to date.
func predecessorWrites(p framework.Predecessor, conditionType string) bool {
	if p == framework.Predecessor418 {
		for _, prefix := range []string{"OpenStackManila", "ManagementState", "ConfigObservation", "NFSDriverNodeServiceController",
			"VolumeSnapshotClassController", "ResourceSyncController", "CSIController"} {
			if strings.HasPrefix(conditionType, prefix) {
				return true
			}
		}
		return false
	}
	for _, owner := range []string{"ManilaController", "ManilaDriverControllerServiceController", "ManilaDriverNodeServiceController",
		"NFSDriverNodeServiceController", "ManagementState", "ConfigObservation", "SecretSync"} {
		if rest, ok := strings.CutPrefix(conditionType, owner); ok && !strings.HasPrefix(rest, "Controller") {
			return true
		}
	}
	return false
}

// oursLeft fails while a condition that predecessor p does not write is on the ClusterCSIDriver.
func oursLeft(ctx context.Context, w *framework.World, p framework.Predecessor) error {
	cr, err := w.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range cr.Status.Conditions {
		if !predecessorWrites(p, c.Type) {
			return fmt.Errorf("%s=%s is left", c.Type, c.Status)
		}
	}
	return nil
}

// uid is an object's UID as the takeover checks compare it.
type uid string

// predecessorUIDs are the UIDs of the objects that must survive a takeover without a delete.
func predecessorUIDs(t *testing.T, w *framework.World) map[string]uid {
	t.Helper()
	ctx := context.Background()
	out := map[string]uid{}
	d, err := w.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["Deployment/"+d.Name] = uid(d.UID)
	for _, name := range []string{framework.NodeDaemonSet, framework.NFSNodeDaemonSet} {
		ds, err := w.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out["DaemonSet/"+name] = uid(ds.UID)
	}
	drv, err := w.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["CSIDriver/"+drv.Name] = uid(drv.UID)
	vsc, err := w.Dynamic.Resource(snapshotClassGVR).Get(ctx, framework.SnapshotClass, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["VolumeSnapshotClass/"+vsc.GetName()] = uid(vsc.GetUID())
	s, err := driverSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["Secret/"+s.Name] = uid(s.UID)
	return out
}

// boundVolume creates a PersistentVolume of the driver and a claim bound to it, as the predecessor's
// provisioning left them; the world's binder confirms the binding.
func boundVolume(t *testing.T, w *framework.World, ns, class string) (*corev1.PersistentVolume, *corev1.PersistentVolumeClaim) {
	t.Helper()
	ctx := context.Background()
	if _, err := w.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	size := resource.MustParse("1Gi")
	pv, err := w.Kube.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + ns},
		Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: size}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain, StorageClassName: class,
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: names.CSIDriverName, VolumeHandle: "share-made-by-the-predecessor"}},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = w.Kube.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	claim, err := w.Kube.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data", Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: ptr.To(class), VolumeName: pv.Name,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: size}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pv, claim
}

// volumeSnapshot creates a VolumeSnapshot of the claim on the predecessor's snapshot class.
func volumeSnapshot(t *testing.T, w *framework.World, ns, claim string) string {
	t.Helper()
	vs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshot",
		"metadata": map[string]any{"name": "before-takeover", "namespace": ns},
		"spec": map[string]any{"volumeSnapshotClassName": framework.SnapshotClass,
			"source": map[string]any{"persistentVolumeClaimName": claim}},
	}}
	if _, err := w.Dynamic.Resource(volumeSnapshotGVR).Namespace(ns).Create(context.Background(), vs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return vs.GetName()
}

// defaultClasses lists the classes marked default, by the GA or the beta annotation.
func defaultClasses(t *testing.T, w *framework.World) []string {
	t.Helper()
	list, err := w.Kube.StorageV1().StorageClasses().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sc := range list.Items {
		if sc.Annotations[classplan.DefaultClassAnnotation] == "true" || sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true" {
			out = append(out, sc.Name)
		}
	}
	return out
}

// waitForEventMentioning waits for an event of the operator that names both words.
func waitForEventMentioning(t *testing.T, a, b string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "an event naming "+a+" and "+b, func(ctx context.Context) error {
		list, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range list.Items {
			if strings.Contains(e.Message, a) && strings.Contains(e.Message, b) {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(list.Items))
	})
}

// handedBack checks that, with this operator stopped, OpenShift's own operator can manage what it
// finds: its selectors and names, a CSIDriver whose spec-hash is its own (so it is not recreated), its
// snapshot class parameters, an Opaque driver Secret, and no condition left behind that the predecessor
// does not write itself.
func handedBack(t *testing.T, w *framework.World, p framework.Predecessor) {
	t.Helper()
	ctx := context.Background()
	d, err := w.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(d.Spec.Selector.MatchLabels, framework.PredecessorControllerLabels) {
		t.Errorf("Deployment selector %v", d.Spec.Selector.MatchLabels)
	}
	for name, labels := range map[string]map[string]string{framework.NodeDaemonSet: framework.PredecessorNodeLabels, framework.NFSNodeDaemonSet: framework.PredecessorNFSLabels} {
		ds, err := w.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !equality.Semantic.DeepEqual(ds.Spec.Selector.MatchLabels, labels) || len(ds.Spec.Selector.MatchExpressions) > 0 {
			t.Errorf("DaemonSet %s selector %v, the predecessor's is %v", name, ds.Spec.Selector, labels)
		}
	}
	drv, err := w.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const specHash = "operator.openshift.io/spec-hash"
	if want := framework.PredecessorCSIDriver(t).Annotations[specHash]; drv.Annotations[specHash] != want {
		t.Errorf("CSIDriver spec-hash %q, the predecessor's spec hashes to %q: it would recreate the CSIDriver", drv.Annotations[specHash], want)
	}
	vsc, err := w.Dynamic.Resource(snapshotClassGVR).Get(ctx, framework.SnapshotClass, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := unstructured.NestedStringMap(framework.PredecessorSnapshotClass().Object, "parameters")
	if got, _, _ := unstructured.NestedStringMap(vsc.Object, "parameters"); !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("VolumeSnapshotClass parameters %v, the predecessor's %v", got, want)
	}
	s, err := driverSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Type != corev1.SecretTypeOpaque || ptr.Deref(s.Immutable, false) {
		t.Errorf("driver Secret type %s, immutable %v: the predecessor could not update it", s.Type, s.Immutable)
	}
	if err := oursLeft(ctx, w, p); err != nil {
		t.Errorf("after the hand-back: %v", err)
	}
}
