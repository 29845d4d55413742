package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// Managed CR + Manila with a share type: every operand object exists, with the test images, the
// log level, the hooks' annotations and one replica per control-plane node; no Disabled condition.
func TestManilaPresentInstallsOperand(t *testing.T) {
	world.ResetOperand(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	createNodes(t, 3, "node-role.kubernetes.io/master")
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForNoCondition(t, manila.ConditionDisabled)

	dep := world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
			return fmt.Errorf("replicas %v, want 3 (one per control-plane node)", d.Spec.Replicas)
		}
		// The Deployment may be created before service-ca has written the metrics serving cert; the
		// hash comes with the next sync after the Secret appears.
		if !hasAnnotationPrefix(d.Spec.Template.Annotations, "operator.openshift.io/dep-") {
			return fmt.Errorf("pod template lacks the metrics serving cert hash annotation: %v", d.Spec.Template.Annotations)
		}
		return nil
	})
	wantImages := map[string]string{
		"csi-driver": "DRIVER_IMAGE", "csi-driver-nfs": "NFS_DRIVER_IMAGE", "csi-provisioner": "PROVISIONER_IMAGE",
		"csi-resizer": "RESIZER_IMAGE", "csi-snapshotter": "SNAPSHOTTER_IMAGE", "csi-liveness-probe": "LIVENESS_PROBE_IMAGE",
		"provisioner-kube-rbac-proxy": "KUBE_RBAC_PROXY_IMAGE",
	}
	checkImages(t, "Deployment", dep.Spec.Template.Spec.Containers, wantImages)
	driver := container(t, dep.Spec.Template.Spec.Containers, "csi-driver")
	for _, arg := range []string{"--v=2", "--drivername=manila.csi.openstack.org", "--share-protocol-selector=NFS", "--cluster-id=manila-test"} {
		if !slices.Contains(driver.Args, arg) {
			t.Errorf("controller csi-driver args %v lack %s", driver.Args, arg)
		}
	}
	if dep.Annotations["config.openshift.io/inject-proxy"] == "" {
		t.Errorf("Deployment lacks the inject-proxy annotation")
	}

	node := world.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	checkImages(t, "node DaemonSet", node.Spec.Template.Spec.Containers, map[string]string{
		"csi-driver": "DRIVER_IMAGE", "csi-node-driver-registrar": "NODE_DRIVER_REGISTRAR_IMAGE", "csi-liveness-probe": "LIVENESS_PROBE_IMAGE"})
	if !node.Spec.Template.Spec.HostNetwork {
		t.Errorf("node DaemonSet is not hostNetwork")
	}
	nfs := world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	checkImages(t, "NFS DaemonSet", nfs.Spec.Template.Spec.Containers, map[string]string{"csi-driver": "NFS_DRIVER_IMAGE"})

	ctx := context.Background()
	framework.Eventually(t, framework.DefaultTimeout, "CSIDriver, snapshot class, ServiceMonitor, Service, CA ConfigMap, PDB", func(ctx context.Context) error {
		csiDriver, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if csiDriver.Spec.AttachRequired == nil || *csiDriver.Spec.AttachRequired || csiDriver.Spec.FSGroupPolicy == nil || *csiDriver.Spec.FSGroupPolicy != "None" {
			return fmt.Errorf("CSIDriver spec %+v", csiDriver.Spec)
		}
		for _, gvr := range []struct {
			gvr      schema.GroupVersionResource
			ns, name string
		}{
			{schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}, "", framework.SnapshotClass},
			{schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}, names.OperandNamespace, "manila-csi-driver-controller-monitor"},
		} {
			if _, err := world.Dynamic.Resource(gvr.gvr).Namespace(gvr.ns).Get(ctx, gvr.name, metav1.GetOptions{}); err != nil {
				return err
			}
		}
		svc, err := world.Kube.CoreV1().Services(names.OperandNamespace).Get(ctx, "manila-csi-driver-controller-metrics", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"] != framework.MetricsServingCertSecret {
			return fmt.Errorf("metrics Service annotations %v", svc.Annotations)
		}
		cm, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, "manila-csi-driver-trusted-ca-bundle", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Labels["config.openshift.io/inject-trusted-cabundle"] != "true" {
			return fmt.Errorf("trusted CA ConfigMap labels %v", cm.Labels)
		}
		_, err = world.Kube.PolicyV1().PodDisruptionBudgets(names.OperandNamespace).Get(ctx, "openstack-manila-csi-controllerplugin-pdb", metav1.GetOptions{})
		return err
	})
	for _, sa := range []string{"manila-csi-driver-controller-sa", "manila-csi-driver-node-sa"} {
		if _, err := world.Kube.CoreV1().ServiceAccounts(names.OperandNamespace).Get(ctx, sa, metav1.GetOptions{}); err != nil {
			t.Errorf("ServiceAccount %s: %v", sa, err)
		}
	}
}

// A cloud without Manila in the catalog is Disabled with a reason and gets no operand; registering
// Manila is noticed by the next poll, which removes Disabled and installs the operand.
func TestNoManilaServiceThenRegistered(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	world.OperandPodsReady(t) // Disabled goes only once the driver is Available
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	ctx := context.Background()
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	registered := false
	t.Cleanup(func() {
		if !registered {
			if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
				t.Errorf("registering Manila again: %v", err)
			}
		}
	})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	op := world.RunOperator(t)

	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonNoManilaService || !strings.Contains(cond.Message, "sharev2") {
		t.Errorf("Disabled = %s: %s, want reason %s and a message naming sharev2", cond.Reason, cond.Message, manila.ReasonNoManilaService)
	}
	if _, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the controller Deployment exists without Manila (err=%v)", err)
	}

	logins := keystoneLogins(op)
	if err := world.OpenStack.RegisterManilaInCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	registered = true
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	// The poll that finds Manila is the next one; a poll already in flight as it was registered (its
	// login, and the catalog with it, from before) may come first on a loaded machine.
	if n := keystoneLogins(op) - logins; n < 1 || n > 2 {
		t.Errorf("Manila was found after %d logins (polls) since it was registered, want the next poll (1, or 2 with one in flight)", n)
	}
	world.WaitForDeployment(t, nil)
}

// Manila with no share types is Disabled with reason NoShareTypes until a type is created.
func TestNoShareTypes(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	world.OperandPodsReady(t) // Disabled goes only once the driver is Available
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.RunOperator(t)

	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonNoShareTypes {
		t.Errorf("Disabled reason %s (%s), want %s", cond.Reason, cond.Message, manila.ReasonNoShareTypes)
	}
	createShareType(t, framework.ShareTypeSpec{Name: "late"})
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	world.WaitForDeployment(t, nil)
}

// An OpenStack outage after Manila was found never sets Disabled; it sets Degraded after the grace
// period, and recovery clears it.
func TestOpenStackOutageDegradesButNeverDisables(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	op := world.RunOperator(t)
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	churn := watchSettledChurn(t)

	os := world.OpenStack
	// Keystone down, and Manila restarted so it has no cached token validation: every poll fails.
	for _, step := range []func() error{os.StopKeystone, os.StopManila, os.StartManila} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	keystoneUp := false
	t.Cleanup(func() {
		if !keystoneUp {
			if err := os.StartKeystone(); err != nil {
				t.Errorf("restarting Keystone: %v", err)
			}
		}
	})
	// The grace: Degraded only after three failed polls. Each failed poll after the first is logged
	// with its count before the condition is written, and the next poll comes at least 5 s later, so
	// when Degraded shows, the operator's log must already have the third failure. (A wall-clock window
	// would also count the failures while Manila restarts above, slow on a busy machine.)
	cond := world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if log := op.Logs.String(); !strings.Contains(log, "Manila poll failed (3 in a row)") {
		t.Errorf("Degraded before three failed polls: %s; the operator logged:\n%s", cond.Message, framework.LinesWith(log, "Manila poll failed"))
	}
	if cond.Reason != manila.ReasonOpenStackError {
		t.Errorf("Degraded reason %s, want %s", cond.Reason, manila.ReasonOpenStackError)
	}
	if c := world.Condition(t, manila.ConditionDisabled); c != nil {
		t.Errorf("an outage set %s: %+v", manila.ConditionDisabled, *c)
	}
	if err := os.StartKeystone(); err != nil {
		t.Fatal(err)
	}
	keystoneUp = true
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	noChurn(t, churn)
}

func keystoneLogins(op *framework.RunningOperator) int {
	n := 0
	for _, r := range op.Requests.Log() {
		if strings.HasPrefix(r, "POST ") && strings.HasSuffix(r, "/v3/auth/tokens") {
			n++
		}
	}
	return n
}

func createNodes(t *testing.T, n int, label string) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("master-%d", i)
		_, err := world.Kube.CoreV1().Nodes().Create(context.Background(), &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{label: ""}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := world.Kube.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
				t.Errorf("deleting node %s: %v", name, err)
			}
		})
	}
}

func container(t *testing.T, containers []corev1.Container, name string) corev1.Container {
	t.Helper()
	for _, c := range containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

func checkImages(t *testing.T, what string, containers []corev1.Container, want map[string]string) {
	t.Helper()
	for name, env := range want {
		if got := container(t, containers, name).Image; got != framework.TestImages[env] {
			t.Errorf("%s container %s image %q, want %q (from %s)", what, name, got, framework.TestImages[env], env)
		}
	}
}

func hasAnnotationPrefix(annotations map[string]string, prefix string) bool {
	for k := range annotations {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}
