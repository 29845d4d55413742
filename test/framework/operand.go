package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// Operand object names.
const (
	ControllerDeployment = "openstack-manila-csi-controllerplugin"
	NodeDaemonSet        = "openstack-manila-csi-nodeplugin"
	NFSNodeDaemonSet     = "csi-nodeplugin-nfsplugin"
	SnapshotClass        = "csi-manila-standard"

	// The CephFS instance's (operator config cephfs.enabled).
	CephFSNodeDaemonSet  = "openstack-manila-cephfs-csi-nodeplugin"
	CephCSINodeDaemonSet = "csi-nodeplugin-cephfsplugin"
	CephFSSnapshotClass  = "csi-manila-cephfs"
)

var (
	snapshotClassGVR  = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}
	serviceMonitorGVR = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// ResetOperand deletes the objects a previous test's operator created, so each test starts clean.
func (cp *ControlPlane) ResetOperand(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	ignore := func(err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("resetting the operand: %v", err)
		}
	}
	ignore(cp.Kube.AppsV1().Deployments(names.OperandNamespace).Delete(ctx, ControllerDeployment, metav1.DeleteOptions{}))
	ignore(cp.Kube.AppsV1().DaemonSets(names.OperandNamespace).Delete(ctx, NodeDaemonSet, metav1.DeleteOptions{}))
	ignore(cp.Kube.AppsV1().DaemonSets(names.OperandNamespace).Delete(ctx, NFSNodeDaemonSet, metav1.DeleteOptions{}))
	ignore(cp.Kube.StorageV1().CSIDrivers().Delete(ctx, names.CSIDriverName, metav1.DeleteOptions{}))
	ignore(cp.Dynamic.Resource(snapshotClassGVR).Delete(ctx, SnapshotClass, metav1.DeleteOptions{}))
	ignore(cp.Kube.AppsV1().Deployments(names.OperandNamespace).Delete(ctx, CephFSControllerDeployment, metav1.DeleteOptions{}))
	ignore(cp.Kube.AppsV1().DaemonSets(names.OperandNamespace).Delete(ctx, CephFSNodeDaemonSet, metav1.DeleteOptions{}))
	ignore(cp.Kube.AppsV1().DaemonSets(names.OperandNamespace).Delete(ctx, CephCSINodeDaemonSet, metav1.DeleteOptions{}))
	ignore(cp.Kube.StorageV1().CSIDrivers().Delete(ctx, CephFSDriverName, metav1.DeleteOptions{}))
	ignore(cp.Dynamic.Resource(snapshotClassGVR).Delete(ctx, CephFSSnapshotClass, metav1.DeleteOptions{}))
	// The rest of a CephFS instance a test left: else the next test's operator retires it while that
	// test watches its owned objects (a fault test counts every deletion).
	for _, asset := range []string{assets.CephFSCephConfig, assets.CephFSCephCSIConfig} {
		ignore(cp.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Delete(ctx, assets.ObjectName(asset), metav1.DeleteOptions{}))
	}
	ignore(cp.Kube.CoreV1().Services(names.OperandNamespace).Delete(ctx, assets.ObjectName(assets.CephFSMetricsService), metav1.DeleteOptions{}))
	ignore(cp.Dynamic.Resource(serviceMonitorGVR).Namespace(names.OperandNamespace).Delete(ctx, assets.ObjectName(assets.CephFSServiceMonitor), metav1.DeleteOptions{}))
	// A volume of the CephFS driver left by a test (its deletion cut short when the test's provisioner
	// stopped) would keep the next test's CephFS instance running.
	pvs, err := cp.Kube.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	ignore(err)
	for _, pv := range pvs.Items {
		if pv.Spec.CSI == nil || pv.Spec.CSI.Driver != CephFSDriverName {
			continue
		}
		_, err := cp.Kube.CoreV1().PersistentVolumes().Patch(ctx, pv.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		ignore(err)
		ignore(cp.Kube.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
	}
}

// WaitForDeployment waits until the operand's controller Deployment exists and check passes.
func (cp *ControlPlane) WaitForDeployment(t testing.TB, check func(*appsv1.Deployment) error) *appsv1.Deployment {
	t.Helper()
	var got *appsv1.Deployment
	Eventually(t, DefaultTimeout, "Deployment "+ControllerDeployment, func(ctx context.Context) error {
		d, err := cp.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(d); err != nil {
				return err
			}
		}
		got = d
		return nil
	})
	return got
}

// WaitForDaemonSet waits until the named operand DaemonSet exists and check (if any) passes.
func (cp *ControlPlane) WaitForDaemonSet(t testing.TB, name string, check func(*appsv1.DaemonSet) error) *appsv1.DaemonSet {
	t.Helper()
	var got *appsv1.DaemonSet
	Eventually(t, DefaultTimeout, "DaemonSet "+name, func(ctx context.Context) error {
		d, err := cp.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		got = d
		if check != nil {
			return check(d)
		}
		return nil
	})
	return got
}

// OperandTimeout bounds a wait that spans the operand's rollout: ManilaControllerDisabled, for one, goes
// only once the controller Deployment and the node DaemonSets are Available, which on a loaded 2-core
// machine running six worlds can take well over DefaultTimeout.
const OperandTimeout = 3 * time.Minute

// WaitForNoCondition waits until the ClusterCSIDriver has no condition of the type (OperandTimeout).
func (cp *ControlPlane) WaitForNoCondition(t testing.TB, condType string) {
	t.Helper()
	Eventually(t, OperandTimeout, "no condition "+condType, func(ctx context.Context) error {
		driver, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := v1helpers.FindOperatorCondition(driver.Status.Conditions, condType); c != nil {
			var views []string
			for _, o := range driver.Status.Conditions {
				if strings.HasSuffix(o.Type, "Available") || strings.HasSuffix(o.Type, "Disabled") {
					views = append(views, fmt.Sprintf("%s=%s (%s)", o.Type, o.Status, o.Reason))
				}
			}
			return fmt.Errorf("%s is still there: %s %s: %s; the Available and Disabled conditions: %v", condType, c.Status, c.Reason, c.Message, views)
		}
		return nil
	})
}

// Condition returns the ClusterCSIDriver's condition of the type, or nil.
func (cp *ControlPlane) Condition(t testing.TB, condType string) *operatorv1.OperatorCondition {
	t.Helper()
	driver, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v1helpers.FindOperatorCondition(driver.Status.Conditions, condType)
}

// SetCondition writes a condition into the ClusterCSIDriver's status as another writer would (a
// process that was killed before it could remove it, say).
func (cp *ControlPlane) SetCondition(t testing.TB, cond operatorv1.OperatorCondition) {
	t.Helper()
	cond.LastTransitionTime = metav1.Now()
	Eventually(t, DefaultTimeout, "condition "+cond.Type+" written", func(ctx context.Context) error {
		driver, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		v1helpers.SetOperatorCondition(&driver.Status.Conditions, cond)
		_, err = cp.Operator.OperatorV1().ClusterCSIDrivers().UpdateStatus(ctx, driver, metav1.UpdateOptions{})
		return err
	})
}

// UpdateClusterCSIDriver applies mutate to the ClusterCSIDriver's spec and updates it.
func (cp *ControlPlane) UpdateClusterCSIDriver(t testing.TB, mutate func(*operatorv1.ClusterCSIDriver)) {
	t.Helper()
	Eventually(t, DefaultTimeout, "ClusterCSIDriver update", func(ctx context.Context) error {
		driver, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(driver)
		_, err = cp.Operator.OperatorV1().ClusterCSIDrivers().Update(ctx, driver, metav1.UpdateOptions{})
		return err
	})
}
