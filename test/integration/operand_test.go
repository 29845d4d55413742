package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

func driverArgsContain(arg string) func(*appsv1.Deployment) error {
	return func(d *appsv1.Deployment) error {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "csi-driver" && slices.Contains(c.Args, arg) {
				return nil
			}
		}
		return fmt.Errorf("csi-driver args lack %s", arg)
	}
}

// The CR's log level reaches the driver's --v; Unmanaged leaves the operand alone (a manual edit
// survives, and so does a log level change); back to Managed, the edit is reverted.
func TestLogLevelAndUnmanaged(t *testing.T) {
	world.ResetOperand(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)
	world.WaitForDeployment(t, driverArgsContain("--v=2"))

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.LogLevel = operatorv1.Debug })
	world.WaitForDeployment(t, driverArgsContain("--v=4"))

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Unmanaged })
	// library-go's controllers read the state from the same informer as the writer of observedGeneration.
	framework.Eventually(t, framework.DefaultTimeout, "the operator to see Unmanaged", observedCurrentGeneration)
	editDeployment(t, func(d *appsv1.Deployment) { d.Annotations["test.example.com/manual"] = "kept" })
	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.LogLevel = operatorv1.TraceAll })
	framework.Consistently(t, 5*time.Second, "Unmanaged: the manual edit and --v=4 stay", func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Annotations["test.example.com/manual"] != "kept" {
			return fmt.Errorf("the manual annotation is gone")
		}
		return driverArgsContain("--v=4")(d)
	})

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Managed })
	world.WaitForDeployment(t, driverArgsContain("--v=8"))
}

func editDeployment(t *testing.T, mutate func(*appsv1.Deployment)) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "editing the Deployment", func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		mutate(d)
		_, err = world.Kube.AppsV1().Deployments(names.OperandNamespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// Objects the operator does not watch (a StorageClass, a CSIDriver, other Secrets and ConfigMaps)
// cause no Keystone or Manila request, nor do CR changes that do not concern detection; a change of
// the credentials does (the control that counting works).
func TestUnrelatedObjectsCauseNoOpenStackRequests(t *testing.T) {
	world.ResetOperand(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	opts, counter := framework.OperatorOptions()
	opts.PollInterval = time.Hour // no timer poll inside this test
	world.RunOperatorWith(t, opts, counter)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForDeployment(t, nil)

	before := len(counter.Log())
	if before == 0 {
		t.Fatalf("the request counter saw nothing")
	}
	ctx := context.Background()
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "unrelated"}, Provisioner: "example.com/other"}
	if _, err := world.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.StorageV1().StorageClasses().Delete(context.Background(), "unrelated", metav1.DeleteOptions{})
	})
	other := &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: "other.csi.example.com"}}
	if _, err := world.Kube.StorageV1().CSIDrivers().Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = world.Kube.StorageV1().CSIDrivers().Delete(context.Background(), "other.csi.example.com", metav1.DeleteOptions{})
	})
	for _, ns := range []string{names.OperatorNamespace, names.CloudConfigNamespace} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unrelated", Namespace: ns}}
		if _, err := world.Kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = world.Kube.CoreV1().Secrets(ns).Delete(context.Background(), "unrelated", metav1.DeleteOptions{})
		})
	}
	framework.Consistently(t, 3*time.Second, "no OpenStack request", func(context.Context) error {
		if log := counter.Log(); len(log) != before {
			return fmt.Errorf("new requests: %v", log[before:])
		}
		return nil
	})

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.LogLevel = operatorv1.Debug })
	world.WaitForDeployment(t, driverArgsContain("--v=4"))
	if log := counter.Log(); len(log) != before {
		t.Errorf("a log level change caused OpenStack requests: %v", log[before:])
	}

	rotated := append(world.OpenStack.CloudsYAML(), []byte("# rotated\n")...)
	if err := world.WriteCloudCredentials(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = world.WriteCloudCredentials(context.Background(), world.OpenStack.CloudsYAML()) })
	framework.Eventually(t, framework.DefaultTimeout, "a login with the changed credentials", func(context.Context) error {
		for _, r := range counter.Log()[before:] {
			if strings.HasSuffix(r, "/v3/auth/tokens") {
				return nil
			}
		}
		return fmt.Errorf("requests since: %v", counter.Log()[before:])
	})
}

// Missing credentials are Degraded after the grace period, naming the secret; malformed ones at once,
// naming the key and the field and never a value; in neither case is the driver Disabled.
func TestCredentialErrors(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	ctx := context.Background()
	t.Cleanup(func() {
		if err := world.WriteCloudCredentials(context.Background(), world.OpenStack.CloudsYAML()); err != nil {
			t.Errorf("restoring the credentials: %v", err)
		}
	})
	if err := world.Kube.CoreV1().Secrets(names.OperatorNamespace).Delete(ctx, names.CloudCredentialsSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	cond := world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonCredentialsMissing || !strings.Contains(cond.Message, names.OperatorNamespace+"/"+names.CloudCredentialsSecret) {
		t.Errorf("missing secret: Degraded %s: %s", cond.Reason, cond.Message)
	}

	const password = "s3cr3t-never-shown"
	bad := "clouds:\n  openstack:\n    auth:\n      username: admin\n      password: " + password + "\n"
	if err := world.WriteCloudCredentials(ctx, []byte(bad)); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "Degraded naming auth_url", func(context.Context) error {
		c := world.Condition(t, manila.ConditionDegraded)
		if c == nil || c.Reason != manila.ReasonInvalidCredentials {
			return fmt.Errorf("Degraded is %+v", c)
		}
		if !strings.Contains(c.Message, names.CloudsYAMLKey) || !strings.Contains(c.Message, "clouds.openstack.auth.auth_url") {
			return fmt.Errorf("message %q names neither the key nor the field", c.Message)
		}
		if strings.Contains(c.Message, password) {
			t.Fatalf("the condition leaks the password: %s", c.Message)
		}
		return nil
	})
	if c := world.Condition(t, manila.ConditionDisabled); c != nil {
		t.Errorf("bad credentials set %s: %+v", manila.ConditionDisabled, *c)
	}
	events, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events.Items {
		if strings.Contains(e.Message, password) {
			t.Errorf("event %s leaks the password: %s", e.Reason, e.Message)
		}
	}

	if err := world.WriteCloudCredentials(ctx, world.OpenStack.CloudsYAML()); err != nil {
		t.Fatal(err)
	}
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
}
