package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The foreign-objects matrix: an object with one of the operator's names exists before the operator
// starts (an admin's, or an older install's). A StorageClass is the admin's and is left alone with a
// condition and an event naming it; the objects in the operand's own namespace and the CSIDriver are
// the driver's by name and are brought to the operator's rendering (a workload whose immutable selector
// differs is deleted and created again, with an event naming it).
func TestForeignObjectsMatrix(t *testing.T) {
	labels := map[string]string{"app": "someone-else"}
	cases := []struct {
		name     string
		object   func(ctx context.Context) error
		outcome  func(t *testing.T)
		recovery func(t *testing.T)
	}{
		{"a StorageClass with the name of an operator class", func(ctx context.Context) error {
			_, err := world.Kube.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
				ObjectMeta:  metav1.ObjectMeta{Name: "csi-manila-gold", Annotations: map[string]string{"admin": "mine"}},
				Provisioner: "example.com/other", Parameters: map[string]string{"x": "y"}}, metav1.CreateOptions{})
			return err
		}, func(t *testing.T) {
			world.WaitForStorageClass(t, "csi-manila-silver", nil)
			cond := world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionTrue)
			if !strings.Contains(cond.Message, "csi-manila-gold") || !strings.Contains(cond.Message, classplan.OwnerLabel) {
				t.Errorf("condition message %q does not name the class and the label", cond.Message)
			}
			waitForEvent(t, "StorageClassConflict", "csi-manila-gold")
			sc := world.WaitForStorageClass(t, "csi-manila-gold", nil)
			if sc.Provisioner != "example.com/other" || sc.Annotations["admin"] != "mine" || classplan.Owned(sc) {
				t.Errorf("the foreign class changed: %+v", sc)
			}
			// Open to any host (nfs-shareClient unset) are the operator's classes only, not the one in the way.
			waitOpenNFSAccess(t, "csi-manila-silver")
		}, func(t *testing.T) {
			if err := world.Kube.StorageV1().StorageClasses().Delete(context.Background(), "csi-manila-gold", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			world.WaitForStorageClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) error {
				if !classplan.Owned(sc) {
					return fmt.Errorf("not owned")
				}
				return nil
			})
			world.WaitForCondition(t, storageclasses.ConditionDegraded, operatorv1.ConditionFalse)
			waitOpenNFSAccess(t, "csi-manila-gold, csi-manila-silver")
		}},
		{"a CSIDriver of the driver's name with another spec", func(ctx context.Context) error {
			_, err := world.Kube.StorageV1().CSIDrivers().Create(ctx, &storagev1.CSIDriver{
				ObjectMeta: metav1.ObjectMeta{Name: names.CSIDriverName},
				Spec:       storagev1.CSIDriverSpec{AttachRequired: ptr.To(true), PodInfoOnMount: ptr.To(true)}}, metav1.CreateOptions{})
			return err
		}, func(t *testing.T) {
			framework.Eventually(t, framework.DefaultTimeout, "the operator's CSIDriver", func(ctx context.Context) error {
				d, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
				if err != nil {
					return err
				}
				if *d.Spec.AttachRequired || *d.Spec.PodInfoOnMount || d.Annotations["csi.openshift.io/managed"] != "true" {
					return fmt.Errorf("CSIDriver spec %+v, annotations %v", d.Spec, d.Annotations)
				}
				return nil
			})
		}, nil},
		{"a driver secret left by an older install", func(ctx context.Context) error {
			_, err := world.Kube.CoreV1().Secrets(names.OperandNamespace).Create(ctx, &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: names.DriverSecret, Namespace: names.OperandNamespace},
				Data:       map[string][]byte{"os-password": []byte("old"), "os-legacyKey": []byte("x")}}, metav1.CreateOptions{})
			return err
		}, func(t *testing.T) {
			waitDriverSecret(t, "the verified credentials only", func(data map[string][]byte) error {
				if _, stale := data["os-legacyKey"]; stale || string(data["os-password"]) != world.OpenStack.AdminPassword {
					return fmt.Errorf("the driver secret still holds the old install's keys")
				}
				return nil
			})
		}, nil},
		{"a controller Deployment with another selector", func(ctx context.Context) error {
			_, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Create(ctx, foreignDeployment(labels), metav1.CreateOptions{})
			return err
		}, func(t *testing.T) {
			waitForEvent(t, "WorkloadRecreated", framework.ControllerDeployment+" so that the operator can create it: its spec.selector {app=someone-else}")
			workloadWithOperatorSelector(t, func(ctx context.Context) (*metav1.LabelSelector, error) {
				d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return d.Spec.Selector, nil
			}, labels)
		}, nil},
		{"a node DaemonSet with another selector", func(ctx context.Context) error {
			_, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Create(ctx, foreignDaemonSet(labels), metav1.CreateOptions{})
			return err
		}, func(t *testing.T) {
			// Deleted with propagationPolicy Orphan, it is gone once the garbage collector has orphaned its pods.
			world.StartKubeControllers(t, "garbage-collector-controller")
			waitForEvent(t, "WorkloadRecreated", framework.NodeDaemonSet+" so that the operator can create it: its spec.selector {app=someone-else}")
			workloadWithOperatorSelector(t, func(ctx context.Context) (*metav1.LabelSelector, error) {
				d, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return d.Spec.Selector, nil
			}, labels)
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			world.ResetOperand(t)
			world.ResetStorageClasses(t)
			if err := world.Kube.CoreV1().Secrets(names.OperandNamespace).Delete(ctx, names.DriverSecret, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
			if err := tc.object(ctx); err != nil {
				t.Fatal(err)
			}
			createShareType(t, framework.ShareTypeSpec{Name: "gold"})
			createShareType(t, framework.ShareTypeSpec{Name: "silver"})
			world.CreateClusterCSIDriver(t, operatorv1.Managed)
			world.RunOperator(t)
			tc.outcome(t)
			if tc.recovery != nil {
				tc.recovery(t)
			}
		})
	}
}

// waitOpenNFSAccess waits until StorageClassControllerOpenNFSAccess lists exactly the classes (as
// "a, b") in its message.
func waitOpenNFSAccess(t *testing.T, classes string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "OpenNFSAccess naming "+classes, func(context.Context) error {
		c := world.Condition(t, storageclasses.ConditionOpenNFSAccess)
		if want := "StorageClasses " + classes + " let any host"; c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, want) {
			return fmt.Errorf("condition %+v, want True with %q", c, want)
		}
		return nil
	})
}

// workloadWithOperatorSelector waits until the workload selects the operator's pods, not the foreign ones.
func workloadWithOperatorSelector(t *testing.T, selector func(context.Context) (*metav1.LabelSelector, error), foreign map[string]string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "the operator's workload", func(ctx context.Context) error {
		s, err := selector(ctx)
		if err != nil {
			return err
		}
		if s.MatchLabels["app"] == foreign["app"] {
			return fmt.Errorf("the workload still has the foreign selector %v", s.MatchLabels)
		}
		return nil
	})
}

func foreignPodTemplate(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "old", Image: "example.com/old:1"}}}}
}

func foreignDeployment(labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: framework.ControllerDeployment, Namespace: names.OperandNamespace},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: foreignPodTemplate(labels)}}
}

func foreignDaemonSet(labels map[string]string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: framework.NodeDaemonSet, Namespace: names.OperandNamespace},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: foreignPodTemplate(labels)}}
}
