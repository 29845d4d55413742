package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const driverImage = "quay.io/test/manila-csi-plugin:1"

func driverImageIs(want string) func(*appsv1.Deployment) error {
	return func(d *appsv1.Deployment) error {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "csi-driver" && c.Image != want {
				return fmt.Errorf("csi-driver image %s, want %s", c.Image, want)
			}
		}
		return nil
	}
}

func waitForCSIDriver(t *testing.T) *storagev1.CSIDriver {
	t.Helper()
	var got *storagev1.CSIDriver
	framework.Eventually(t, framework.DefaultTimeout, "CSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
		d, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		got = d
		return err
	})
	return got
}

// Once Manila has been found, a new operator process reconciles the operand at once, even while
// Keystone is down: a deleted CSIDriver comes back, an edited image is reverted, and a Degraded
// condition a stopped instance left behind is cleared.
func TestRestartDuringOutageReconcilesOperandAtOnce(t *testing.T) {
	first := startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	world.WaitForDeployment(t, driverImageIs(driverImage))
	waitForCSIDriver(t)
	first.Stop()

	if err := world.OpenStack.StopKeystone(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.StartKeystone(); err != nil {
			t.Errorf("restarting Keystone: %v", err)
		}
	})
	if err := world.Kube.StorageV1().CSIDrivers().Delete(context.Background(), names.CSIDriverName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	editDeployment(t, func(d *appsv1.Deployment) {
		for i := range d.Spec.Template.Spec.Containers {
			if d.Spec.Template.Spec.Containers[i].Name == "csi-driver" {
				d.Spec.Template.Spec.Containers[i].Image = "quay.io/evil/driver:0"
			}
		}
	})

	// What a stopped instance may leave behind: a Degraded condition from a sync that ran before the
	// TLS profile was observed. Only a running deployment controller clears it.
	const stale = "ManilaDriverControllerServiceControllerDegraded"
	framework.Eventually(t, framework.DefaultTimeout, "a stale condition", func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		v1helpers.SetOperatorCondition(&d.Status.Conditions, operatorv1.OperatorCondition{Type: stale, Status: operatorv1.ConditionTrue,
			Reason: "SyncError", Message: "container csi-driver: ${TLS_CIPHER_SUITES} is not filled in yet"})
		_, err = world.Operator.OperatorV1().ClusterCSIDrivers().UpdateStatus(ctx, d, metav1.UpdateOptions{})
		return err
	})

	second := world.RunOperator(t)
	waitForCSIDriver(t)
	world.WaitForDeployment(t, driverImageIs(driverImage))
	world.WaitForCondition(t, stale, operatorv1.ConditionFalse)
	if !strings.Contains(second.Logs.String(), "Manila was found at") {
		t.Errorf("the new process did not start the operand from the recorded promise")
	}
}

// A restarted operator keeps the last valid operator config while the admin's ConfigMap is invalid:
// the workloads keep the admin's mount, and the condition says the last valid config is in force.
func TestRestartKeepsLastValidConfig(t *testing.T) {
	first := startOperator(t, mountsConfig, framework.ShareTypeSpec{Name: "default"})
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, map[string]string{"ceph": "/etc/ceph"})
	})
	_, node, nfs := settledWorkloads(t)
	framework.Eventually(t, framework.DefaultTimeout, "the last valid config persisted", func(ctx context.Context) error {
		cm, err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Get(ctx, "manila-csi-driver-operator-state", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !strings.Contains(cm.Data["lastValidOperatorConfig"], "/etc/ceph") {
			return fmt.Errorf("state holds %q", cm.Data["lastValidOperatorConfig"])
		}
		return nil
	})
	first.Stop()

	world.WriteOperatorConfig(t, mountsConfig+"\nunknownSetting: 1\n")
	world.RunOperator(t)
	cond := world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "unknownSetting") || !strings.Contains(cond.Message, "last valid configuration stays in force") {
		t.Errorf("condition %q", cond.Message)
	}
	// The volumes and mounts, not the generation: the first process may stop before it has applied a
	// late input of the world (on a loaded machine, one that came more than the settling time after
	// its last write), which the second then applies; only the mounts are the config's.
	framework.Consistently(t, 5*time.Second, "all three workloads keep the admin's mounts", func(ctx context.Context) error {
		for name, before := range map[string]*appsv1.DaemonSet{framework.NodeDaemonSet: node, framework.NFSNodeDaemonSet: nfs} {
			ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if had, has := volumesAndMounts(before.Spec.Template.Spec), volumesAndMounts(ds.Spec.Template.Spec); had != has {
				return fmt.Errorf("%s's volumes and mounts changed:\n%s\nto\n%s", name, had, has)
			}
		}
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return wantMounts(d.Spec.Template.Spec, map[string]string{"site-policy": "/etc/site-policy"})
	})
}

// Unmanaged means no writes at all: a class edit, a deleted class and a changed driver secret stay
// as the admin left them; back to Managed, all three are reconciled. Removed is reported as
// unsupported and writes nothing either.
func TestUnmanagedAndRemovedWriteNothing(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	waitDriverSecret(t, "the driver secret", func(map[string][]byte) error { return nil })

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Unmanaged })
	framework.Eventually(t, framework.DefaultTimeout, "the operator to see Unmanaged", observedCurrentGeneration)
	updateClass(t, "csi-manila-gold", func(sc *storagev1.StorageClass) { sc.AllowVolumeExpansion = ptrTo(false) })
	if err := world.Kube.StorageV1().StorageClasses().Delete(context.Background(), "csi-manila-silver", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "editing the driver secret", func(ctx context.Context) error {
		s, err := driverSecret(ctx)
		if err != nil {
			return err
		}
		s.Data["os-password"] = []byte("admin-edited")
		_, err = world.Kube.CoreV1().Secrets(names.OperandNamespace).Update(ctx, s, metav1.UpdateOptions{})
		return err
	})
	framework.Consistently(t, 10*time.Second, "Unmanaged: no write", func(ctx context.Context) error {
		gold, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-gold", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if gold.AllowVolumeExpansion == nil || *gold.AllowVolumeExpansion {
			return fmt.Errorf("the class edit was reverted")
		}
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-silver", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the deleted class is back (err=%v)", err)
		}
		s, err := driverSecret(ctx)
		if err != nil {
			return err
		}
		if string(s.Data["os-password"]) != "admin-edited" {
			return fmt.Errorf("the driver secret was rewritten")
		}
		return nil
	})

	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Managed })
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	waitDriverSecret(t, "the driver secret reconciled", func(data map[string][]byte) error {
		if string(data["os-password"]) == "admin-edited" {
			return fmt.Errorf("still the admin's edit")
		}
		return nil
	})

	// Removed is not supported (the driver must stay so volumes can unmount): library-go's
	// management-state controller says so, and nothing is written either.
	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Removed })
	cond := world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionTrue)
	if cond.Reason != "Removed" {
		t.Errorf("ManagementStateDegraded reason %q, want Removed", cond.Reason)
	}
	if err := world.Kube.StorageV1().StorageClasses().Delete(context.Background(), "csi-manila-gold", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Consistently(t, 5*time.Second, "Removed: the deleted class stays deleted", func(ctx context.Context) error {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-gold", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("the deleted class is back (err=%v)", err)
		}
		return nil
	})
	world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Managed })
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionFalse)
}

func ptrTo[T any](v T) *T { return &v }

// ownedUIDs returns the UIDs of every object the operator owns, by kind and name.
func ownedUIDs(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["Deployment/"+d.Name] = string(d.UID)
	for _, name := range []string{framework.NodeDaemonSet, framework.NFSNodeDaemonSet} {
		ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out["DaemonSet/"+name] = string(ds.UID)
	}
	drv, err := world.Kube.StorageV1().CSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out["CSIDriver/"+drv.Name] = string(drv.UID)
	s, err := driverSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["Secret/"+s.Name] = string(s.UID)
	classes, err := world.OwnedStorageClasses(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range classes {
		out["StorageClass/"+name] = string(sc.UID)
	}
	for _, name := range []string{"manila-csi-driver-controller-sa", "manila-csi-driver-node-sa"} {
		sa, err := world.Kube.CoreV1().ServiceAccounts(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out["ServiceAccount/"+name] = string(sa.UID)
	}
	return out
}

// converged waits for the whole operand: workloads, CSIDriver, driver secret and both classes.
func converged(t *testing.T, image string) {
	t.Helper()
	world.WaitForDeployment(t, driverImageIs(image))
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, nil)
	world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, nil)
	waitForCSIDriver(t)
	waitDriverSecret(t, "the driver secret", func(map[string][]byte) error { return nil })
	world.WaitForStorageClass(t, "csi-manila-gold", nil)
	world.WaitForStorageClass(t, "csi-manila-silver", nil)
	world.WaitForNoCondition(t, "ManilaControllerDisabled")
}

// Stopped at ten moments of its convergence, the operator is replaced by a new process that
// converges with no owned object deleted or recreated: the UIDs seen after the first convergence are
// the UIDs at the end, and a watch saw no deletion.
func TestRestartAtTenMoments(t *testing.T) {
	op := startOperator(t, "", framework.ShareTypeSpec{Name: "gold"}, framework.ShareTypeSpec{Name: "silver"})
	converged(t, driverImage)
	before := ownedUIDs(t)
	deletions := watchDeletions(t)
	// A restart onto a converged operand makes about 35 kube-apiserver requests (the informers' lists
	// and watches, the lease, status): the ten moments are spread over the first 27.
	const step = 3
	op.Stop()
	for i := range 10 {
		op = world.RunOperator(t)
		// The moment of the stop: after the i*step-th request to kube-apiserver of this process.
		requests := op.KubeRequests
		framework.Eventually(t, framework.DefaultTimeout, fmt.Sprintf("%d kube-apiserver requests", i*step), func(context.Context) error {
			if n := len(requests.Log()); n < i*step {
				return fmt.Errorf("%d so far", n)
			}
			return nil
		})
		op.Stop()
	}
	world.RunOperator(t)
	converged(t, driverImage)
	after := ownedUIDs(t)
	for key, uid := range before {
		if after[key] != uid {
			t.Errorf("%s was recreated: UID %s -> %s", key, uid, after[key])
		}
	}
	if got := deletions(); len(got) > 0 {
		t.Errorf("owned objects were deleted across the restarts: %v", got)
	}
}

// watchDeletions records deletions of the operand's workloads and secrets, the CSIDriver and
// StorageClasses until the test ends; the returned function lists them so far.
func watchDeletions(t *testing.T) func() []string {
	t.Helper()
	return watchDeletionsIn(t, world.Kube)
}

// watchDeletionsIn is watchDeletions in the cluster of kube (a hosted cluster's guest).
func watchDeletionsIn(t *testing.T, kube kubernetes.Interface) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	events := make(chan string, 100)
	var seen []string
	type watcher = watch.Interface
	starters := map[string]func(context.Context, metav1.ListOptions) (watcher, error){
		"Deployment": func(ctx context.Context, o metav1.ListOptions) (watcher, error) {
			return kube.AppsV1().Deployments(names.OperandNamespace).Watch(ctx, o)
		},
		"DaemonSet": func(ctx context.Context, o metav1.ListOptions) (watcher, error) {
			return kube.AppsV1().DaemonSets(names.OperandNamespace).Watch(ctx, o)
		},
		"Secret": func(ctx context.Context, o metav1.ListOptions) (watcher, error) {
			return kube.CoreV1().Secrets(names.OperandNamespace).Watch(ctx, o)
		},
		"CSIDriver": func(ctx context.Context, o metav1.ListOptions) (watcher, error) {
			return kube.StorageV1().CSIDrivers().Watch(ctx, o)
		},
		"StorageClass": func(ctx context.Context, o metav1.ListOptions) (watcher, error) {
			return kube.StorageV1().StorageClasses().Watch(ctx, o)
		},
	}
	for kind, start := range starters {
		w, err := start(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Stop()
			for ev := range w.ResultChan() {
				if ev.Type == watch.Deleted {
					if m, ok := ev.Object.(metav1.Object); ok {
						events <- kind + "/" + m.GetName()
					}
				}
			}
		}()
	}
	return func() []string {
		for {
			select {
			case e := <-events:
				seen = append(seen, e)
			default:
				return seen
			}
		}
	}
}

// SIGKILLed at three moments of its convergence, as an OOM kill or a node loss would, the binary as
// deployed is replaced by a new process that converges; once converged, a kill and a restart delete
// or recreate nothing. Leader election makes each new process wait for the dead one's lease: the
// only change to the manifest's arguments is a shorter lease, to keep the test short.
func TestBinaryKilledMidConvergence(t *testing.T) {
	image := freshClusterForBinary(t)
	holder := ""
	// The moments of the kill, after the process became leader: at once, once its controllers start,
	// once it starts the operand's controllers.
	for _, moment := range []string{"", "Starting " + names.OperatorName + " for ClusterCSIDriver", "Starting the Manila CSI driver controllers"} {
		run := startBinary(t, shortLease)
		holder = waitForNewLeader(t, holder)
		if moment != "" {
			run.waitForLog(t, moment)
		}
		run.kill()
	}
	run := startBinary(t, shortLease)
	holder = waitForNewLeader(t, holder)
	converged(t, image)
	before := ownedUIDs(t)
	deletions := watchDeletions(t)
	run.kill()
	startBinary(t, shortLease)
	waitForNewLeader(t, holder)
	world.WaitForCondition(t, "ManilaControllerDegraded", operatorv1.ConditionFalse)
	converged(t, image)
	world.WaitForNoCondition(t, "ManilaControllerDisabled")
	after := ownedUIDs(t)
	for key, uid := range before {
		if after[key] != uid {
			t.Errorf("%s was recreated: UID %s -> %s", key, uid, after[key])
		}
	}
	if got := deletions(); len(got) > 0 {
		t.Errorf("owned objects were deleted across the kill: %v", got)
	}
}

// waitForNewLeader waits until the operator's lease is held by someone other than previous, and
// returns the new holder.
func waitForNewLeader(t *testing.T, previous string) string {
	t.Helper()
	holder := ""
	framework.Eventually(t, framework.DefaultTimeout, "a new leader", func(ctx context.Context) error {
		l, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, names.OperatorName+"-lock", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" || *l.Spec.HolderIdentity == previous {
			return fmt.Errorf("lease held by %v", l.Spec.HolderIdentity)
		}
		holder = *l.Spec.HolderIdentity
		return nil
	})
	return holder
}

// freshClusterForBinary prepares a clean operand, two share types and a Managed ClusterCSIDriver for
// tests that run the binary as deployed, and returns the driver image of the manifest.
func freshClusterForBinary(t *testing.T) string {
	t.Helper()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "gold"})
	createShareType(t, framework.ShareTypeSpec{Name: "silver"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	return manifestEnv(t, "DRIVER_IMAGE")
}

func manifestEnv(t *testing.T, name string) string {
	t.Helper()
	for _, e := range operatorDeployment(t).Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	t.Fatalf("the manifest's Deployment has no %s", name)
	return ""
}

// shortLease are the leader-election flags that make a killed process's lease expire in 10 s
// instead of library-go's 137 s.
var shortLease = []string{"--leader-election-lease-duration=10s", "--leader-election-renew-deadline=7s", "--leader-election-retry-period=2s"}

// Two operator processes at once, as during a rolling update: one leads and reconciles; when it stops,
// the other takes over (a released lease, at once) and reconciles in its place.
func TestTwoOperatorsOneLeader(t *testing.T) {
	image := freshClusterForBinary(t)
	first := startBinary(t, shortLease)
	leader := waitForNewLeader(t, "")
	second := startBinary(t, shortLease)
	converged(t, image)
	if err := first.terminate(t); err != nil {
		t.Errorf("the first operator's exit: %v", err)
	}
	waitForNewLeader(t, leader)
	if err := world.Kube.StorageV1().CSIDrivers().Delete(context.Background(), names.CSIDriverName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCSIDriver(t)
	converged(t, image)
	if b, _ := os.ReadFile(second.logFile); !strings.Contains(string(b), "Successfully acquired lease") {
		t.Errorf("the second operator never took the lease:\n%s", lastLines(string(b), 30))
	}
}

// volumesAndMounts is a pod spec's volumes and its containers' volume mounts, as JSON.
func volumesAndMounts(spec corev1.PodSpec) string {
	mounts := map[string][]corev1.VolumeMount{}
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		mounts[c.Name] = c.VolumeMounts
	}
	b, err := json.Marshal(map[string]any{"volumes": spec.Volumes, "mounts": mounts})
	if err != nil {
		return err.Error()
	}
	return string(b)
}
