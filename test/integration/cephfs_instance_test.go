package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/contentwatch"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const (
	goodCephCSI  = "quay.io/cephcsi/cephcsi:v3.16.0"
	goodCephCSI2 = "quay.io/cephcsi/cephcsi:v3.18.0"
	badCephCSI   = "quay.io/cephcsi/cephcsi:v3.17.0"
)

func cephFSConfig(image string) string {
	return "cephfs:\n  enabled: true\n  image: " + image + "\n"
}

// cephCSIImage waits for the ceph-csi node DaemonSet to run image.
func waitForCephCSIImage(t *testing.T, image string) *appsv1.DaemonSet {
	t.Helper()
	return world.WaitForDaemonSet(t, framework.CephCSINodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		for _, c := range ds.Spec.Template.Spec.Containers {
			if c.Name == "csi-driver" && c.Image == image {
				return nil
			}
		}
		return fmt.Errorf("no csi-driver container with image %s", image)
	})
}

// cephFSObjectsAbsent fails unless none of the CephFS instance's objects exists.
func cephFSObjectsAbsent(ctx context.Context) error {
	ns := names.OperandNamespace
	if _, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, cephfs.DriverName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("CSIDriver %s: %v", cephfs.DriverName, err)
	}
	if _, err := world.Kube.AppsV1().Deployments(ns).Get(ctx, framework.CephFSControllerDeployment, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("Deployment %s: %v", framework.CephFSControllerDeployment, err)
	}
	for _, name := range []string{framework.CephFSNodeDaemonSet, framework.CephCSINodeDaemonSet} {
		if _, err := world.Kube.AppsV1().DaemonSets(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("DaemonSet %s: %v", name, err)
		}
	}
	for _, name := range []string{"manila-csi-cephfs-ceph-config", "manila-csi-cephfs-ceph-csi-config"} {
		if _, err := world.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("ConfigMap %s: %v", name, err)
		}
	}
	if _, err := world.Kube.CoreV1().Services(ns).Get(ctx, cephFSMetricsService, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("Service %s: %v", cephFSMetricsService, err)
	}
	if _, err := world.Dynamic.Resource(serviceMonitors).Namespace(ns).Get(ctx, cephFSServiceMonitor, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		return fmt.Errorf("ServiceMonitor %s: %v", cephFSServiceMonitor, err)
	}
	return nil
}

// The CephFS controller's metrics Service and ServiceMonitor (assets/cephfs_service.yaml,
// assets/cephfs_servicemonitor.yaml).
var (
	cephFSMetricsService = assets.ObjectName(assets.CephFSMetricsService)
	cephFSServiceMonitor = assets.ObjectName(assets.CephFSServiceMonitor)
	serviceMonitors      = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// cephFSConditions lists the conditions of the CephFS instance's controllers on the ClusterCSIDriver.
func cephFSConditions(ctx context.Context) ([]string, error) {
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range d.Status.Conditions {
		if strings.HasPrefix(c.Type, "ManilaCephFSDriver") || strings.HasPrefix(c.Type, "CephCSIDriver") {
			out = append(out, c.Type)
		}
	}
	return out, nil
}

// The CephFS instance is off by default and on when the operator config asks, with the ceph-csi image
// it names; a known-bad ceph-csi release or a missing image is refused naming the field, keeping what
// runs; turned off, it stays while a CephFS volume exists, then while a snapshot content of its driver
// does, then goes with its conditions, and its StorageClass stays while a claim names it, then goes. The NFS instance is never touched.
func TestCephFSInstanceOnAndOff(t *testing.T) {
	ctx := context.Background()
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "default"},
		framework.ShareTypeSpec{Name: "gold", ExtraSpecs: map[string]string{"storage_protocol": "CEPHFS"}})
	world.WaitForCondition(t, "ManilaDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)
	// Settled: the hashes of its trusted CA, metrics cert and driver secret are on the pod template.
	nfs := world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		if n := len(d.Spec.Template.Annotations); n < 3 {
			return fmt.Errorf("%d input hashes on the pod template", n)
		}
		return nil
	})
	if err := cephFSObjectsAbsent(ctx); err != nil {
		t.Fatalf("CephFS is off by default, yet: %v", err)
	}

	world.WriteOperatorConfig(t, cephFSConfig(goodCephCSI))
	waitForCephCSIImage(t, goodCephCSI)
	world.WaitForDaemonSet(t, framework.CephFSNodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		if len(ds.Spec.Template.Spec.InitContainers) != 1 {
			return fmt.Errorf("init containers %d, want the one waiting for ceph-csi's socket", len(ds.Spec.Template.Spec.InitContainers))
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the CephFS controller Deployment and CSIDriver", func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.CephFSControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if img := containerImage(d.Spec.Template.Spec, framework.CephFSForwardContainer); img != goodCephCSI {
			return fmt.Errorf("container %s runs %q", framework.CephFSForwardContainer, img)
		}
		drv, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, cephfs.DriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if drv.Spec.AttachRequired == nil || *drv.Spec.AttachRequired {
			return fmt.Errorf("CSIDriver %s requires attach", drv.Name)
		}
		// Its metrics as the NFS controller's: the Service (with the certificate service-ca issues
		// for it, whose hash is on the pods) and the ServiceMonitor.
		if _, err := world.Kube.CoreV1().Services(names.OperandNamespace).Get(ctx, cephFSMetricsService, metav1.GetOptions{}); err != nil {
			return err
		}
		if _, err := world.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, operator.CephFSMetricsCertSecret, metav1.GetOptions{}); err != nil {
			return err
		}
		if n := len(d.Spec.Template.Annotations); n < 2 {
			return fmt.Errorf("%d input hashes on the pod template, want the driver secret's and the metrics certificate's", n)
		}
		_, err = world.Dynamic.Resource(serviceMonitors).Namespace(names.OperandNamespace).Get(ctx, cephFSServiceMonitor, metav1.GetOptions{})
		return err
	})
	world.WaitForCondition(t, "ManilaCephFSDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)
	world.WaitForCondition(t, "CephCSIDriverNodeServiceControllerDegraded", operatorv1.ConditionFalse)
	const cephFSClass = classplan.CephFSNamePrefix + "gold"
	framework.Eventually(t, framework.DefaultTimeout, "StorageClass "+cephFSClass, func(ctx context.Context) error {
		_, err := world.Kube.StorageV1().StorageClasses().Get(ctx, cephFSClass, metav1.GetOptions{})
		return err
	})
	// Both instances running, every condition on the ClusterCSIDriver is one of the types the operator
	// lists as its own (what its takeover and hand-back remove or keep), exactly.
	driver, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range driver.Status.Conditions {
		if !operator.OwnConditions().Has(c.Type) {
			t.Errorf("condition %s is on the ClusterCSIDriver but not among the operator's own types", c.Type)
		}
	}
	// A claim (never provisioned: the world's ceph-csi is idle) keeps the class once CephFS is off.
	claim := world.CreateClaim(t, "cephfs-claims", "data", cephFSClass, "1Gi")

	t.Run("KnownBadCephCSIRefused", func(t *testing.T) {
		world.WriteOperatorConfig(t, cephFSConfig(badCephCSI))
		cond := world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue)
		for _, want := range []string{"cephfs.image", "v3.17.0", "v3.16.0", "v3.18.0"} {
			if !strings.Contains(cond.Message, want) {
				t.Errorf("condition message %q does not name %s", cond.Message, want)
			}
		}
		waitForCephCSIImage(t, goodCephCSI) // the last valid config stays in force
	})
	t.Run("EnabledWithoutImageRefused", func(t *testing.T) {
		world.WriteOperatorConfig(t, "cephfs: {enabled: true}\n")
		framework.Eventually(t, framework.DefaultTimeout, "the config condition naming cephfs.image", func(ctx context.Context) error {
			c := world.Condition(t, configcheck.ConditionDegraded)
			if c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, "cephfs.image: required") {
				return fmt.Errorf("condition %+v", c)
			}
			return nil
		})
		waitForCephCSIImage(t, goodCephCSI)
	})
	t.Run("ClientIDManilaRefusesIsConfigError", func(t *testing.T) {
		world.WriteOperatorConfig(t, cephFSConfig(goodCephCSI)+"storageClasses: {defaults: {cephfs-clientID: client.ocp}}\n")
		framework.Eventually(t, framework.DefaultTimeout, "the config condition naming cephfs-clientID", func(ctx context.Context) error {
			c := world.Condition(t, configcheck.ConditionDegraded)
			if c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, "storageClasses.defaults.cephfs-clientID") ||
				!strings.Contains(c.Message, "period") {
				return fmt.Errorf("condition %+v", c)
			}
			return nil
		})
	})
	t.Run("ImageChangeRolls", func(t *testing.T) {
		world.WriteOperatorConfig(t, cephFSConfig(goodCephCSI2))
		world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
		waitForCephCSIImage(t, goodCephCSI2)
	})

	// The cluster's kube-controller-manager lifts the protection finalizers of the volume and the claim
	// deleted below, once nothing uses them.
	world.StartKubeControllers(t, "persistentvolume-protection-controller", "persistentvolumeclaim-protection-controller")

	// A volume of the CephFS driver keeps the instance when it is turned off.
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "cephfs-volume-in-use"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: cephfs.DriverName, VolumeHandle: "4a1b2c3d-0000-4000-8000-000000000001"}},
		},
	}
	if _, err := world.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.CoreV1().PersistentVolumes().Delete(context.Background(), pv.Name, metav1.DeleteOptions{})
	})
	world.WriteOperatorConfig(t, "cephfs: {enabled: false}\n")
	cond := world.WaitForCondition(t, cephfs.ConditionRetained, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, pv.Name) {
		t.Errorf("%s message %q does not name the volume", cephfs.ConditionRetained, cond.Message)
	}
	waitForCephCSIImage(t, goodCephCSI2) // kept, and still reconciled with the image it ran with
	// The config names no image now; the image in force is in the cluster (the state ConfigMap), so a
	// new process recreates a deleted ceph-csi DaemonSet with it.
	op.Stop()
	if err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Delete(ctx, framework.CephCSINodeDaemonSet, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.RunOperator(t)
	waitForCephCSIImage(t, goodCephCSI2)
	world.WaitForCondition(t, cephfs.ConditionRetained, operatorv1.ConditionTrue)

	// A snapshot content of the CephFS driver that carries the snapshot controller's finalizer keeps it
	// once its volume is gone: only the instance's csi-snapshotter lifts that finalizer. A Retain content
	// without it (pre-provisioned, unbound) needs nothing of the instance and keeps nothing.
	contents := world.Dynamic.Resource(framework.VolumeSnapshotContentGVR)
	newContent := func(name string, finalizers ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "snapshot.storage.k8s.io/v1", "kind": "VolumeSnapshotContent",
			"metadata": map[string]any{"name": name, "finalizers": finalizers},
			"spec": map[string]any{"driver": cephfs.DriverName, "deletionPolicy": "Retain",
				"source":            map[string]any{"snapshotHandle": "4a1b2c3d-0000-4000-8000-000000000002"},
				"volumeSnapshotRef": map[string]any{"name": "gone", "namespace": "cephfs-claims"}},
		}}
	}
	bound, unbound := newContent("cephfs-snapcontent-bound", contentwatch.SnapshotterFinalizer), newContent("cephfs-snapcontent-unbound")
	for _, c := range []*unstructured.Unstructured{bound, unbound} {
		if _, err := contents.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Without the instance's csi-snapshotter nobody lifts the finalizer: lift it, then delete.
			_, _ = contents.Patch(context.Background(), c.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			_ = contents.Delete(context.Background(), c.GetName(), metav1.DeleteOptions{})
		})
	}
	if err := world.Kube.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the instance kept by the bound snapshot content", func(ctx context.Context) error {
		c := world.Condition(t, cephfs.ConditionRetained)
		if c == nil || c.Status != operatorv1.ConditionTrue || c.Reason != cephfs.ReasonSnapshotsInUse || !strings.Contains(c.Message, bound.GetName()) {
			return fmt.Errorf("condition %+v", c)
		}
		return nil
	})
	if c := world.Condition(t, cephfs.ConditionRetained); !strings.Contains(c.Message, "while 1 VolumeSnapshotContent(s)") {
		t.Errorf("%s counts the Retain content without the finalizer: %q", cephfs.ConditionRetained, c.Message)
	}
	waitForCephCSIImage(t, goodCephCSI2)
	// The finalizer gone (by hand here; csi-snapshotter lifts it as a Retain content is deleted):
	// nothing keeps the instance.
	if _, err := contents.Patch(ctx, bound.GetName(), types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForCondition(t, cephfs.ConditionRetained, operatorv1.ConditionFalse)

	retained := world.WaitForCondition(t, storageclasses.ConditionCephFSRetained, operatorv1.ConditionTrue)
	if !strings.Contains(retained.Message, cephFSClass+" (PersistentVolumeClaim cephfs-claims/data)") {
		t.Errorf("%s message %q does not name the class and its claim", storageclasses.ConditionCephFSRetained, retained.Message)
	}
	if err := world.Kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Delete(ctx, claim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the CephFS class deleted with its last claim", func(ctx context.Context) error {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, cephFSClass, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("StorageClass %s: %v", cephFSClass, err)
		}
		if c := world.Condition(t, storageclasses.ConditionCephFSRetained); c != nil {
			return fmt.Errorf("%s left: %+v", storageclasses.ConditionCephFSRetained, c)
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the CephFS instance removed", func(ctx context.Context) error {
		if err := cephFSObjectsAbsent(ctx); err != nil {
			return err
		}
		if left, err := cephFSConditions(ctx); err != nil || len(left) > 0 {
			return fmt.Errorf("conditions of the stopped instance left: %v %v", left, err)
		}
		return nil
	})
	// The NFS instance was never replaced, and nothing under cephfs changed its pods. (Its input hashes
	// may change: the driver secret is rewritten when the shared world's credentials change.)
	after := world.WaitForDeployment(t, nil)
	if after.UID != nfs.UID || !equality.Semantic.DeepEqual(after.Spec.Template.Spec, nfs.Spec.Template.Spec) {
		t.Errorf("the NFS controller Deployment changed: UID %s -> %s, pod spec equal: %t", nfs.UID, after.UID,
			equality.Semantic.DeepEqual(after.Spec.Template.Spec, nfs.Spec.Template.Spec))
	}
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := v1helpers.FindOperatorCondition(d.Status.Conditions, "ManilaDriverControllerServiceControllerDegraded"); c == nil || c.Status != operatorv1.ConditionFalse {
		t.Errorf("NFS controller condition %+v", c)
	}
}

func containerImage(spec corev1.PodSpec, name string) string {
	for _, c := range spec.Containers {
		if c.Name == name {
			return c.Image
		}
	}
	return ""
}
