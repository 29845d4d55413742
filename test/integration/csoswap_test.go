package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoSwapTimeout bounds each wait of the image swap: a rollout of the operator's Deployment, the
// lease (library-go's retry period is 26 s) and the operand's rollouts.
const csoSwapTimeout = 3 * time.Minute

// oursConditionOwners are this operator's condition owners, for predecessor.StaleAfterTakeover as the
// operator calls it.
var oursConditionOwners = operator.ConditionOwners()

// TestCSOImageSwap is a release swapping OpenShift's Manila operator for this one and back, as
// cluster-storage-operator does it: the CSO stand-in (framework.StartCSOStandIn: CSO's objects,
// RBAC and Deployment for the generation, and ClusterOperator storage from the ClusterCSIDriver's
// conditions) runs the predecessor stand-in's image (test/predecessorstandin) with a PV, a bound
// claim, a VolumeSnapshot and an admin default class in place; the image is swapped to ours (the
// built binary), the Deployment rolls (new pod first, the old one SIGTERMed once the new one is
// Ready) and this operator takes over; its pod is deleted (a graceful restart) and (under CSO main)
// its process SIGKILLed; then the image is swapped back and the predecessor leads again. Throughout,
// ClusterOperator storage is never Available=False or Degraded=True, no workload, PV, claim or
// snapshot is deleted (4.17's classes are recreated once, for the controller-expand secret), one PDB
// selects the controller's pods and evicting one of them succeeds, and after the swap back nothing
// of this operator's is left on the ClusterCSIDriver. The kube-controller-manager's deployment,
// ReplicaSet, DaemonSet, disruption and volume controllers run; pod runners stand in for three
// master nodes' kubelets (the operator's pod on the first; the operand's pods, whose images an idle
// process stands in for, on all three, so that workloads keep available pods while they roll, as on
// a cluster with three masters).
func TestCSOImageSwap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gen   framework.CSOGeneration
		p     framework.Predecessor
		image string
	}{
		{"4.17", framework.CSO417, framework.Predecessor417, framework.ImagePredecessor417},
		{"4.18", framework.CSOMain, framework.Predecessor418, framework.ImagePredecessor418},
	} {
		t.Run(tc.name, func(t *testing.T) { csoImageSwap(t, tc.gen, tc.p, tc.image) })
	}
}

func csoImageSwap(t *testing.T, gen framework.CSOGeneration, p framework.Predecessor, predImage string) {
	ctx := context.Background()
	bin := t.TempDir()
	pred := filepath.Join(bin, "predecessor-standin-"+string(p))
	if err := framework.BuildPredecessorStandIn(pred, p); err != nil {
		t.Fatal(err)
	}
	// CSO's Deployment names no namespace: in a pod, controllercmd reads the ServiceAccount's.
	oursExec, err := framework.InPodNamespace(bin, operatorBinary(t), names.OperatorNamespace)
	if err != nil {
		t.Fatal(err)
	}
	predExec, err := framework.InPodNamespace(bin, pred, names.OperatorNamespace)
	if err != nil {
		t.Fatal(err)
	}
	idle, err := framework.IdleContainer(bin)
	if err != nil {
		t.Fatal(err)
	}

	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	sfx := "_swap" + strings.ReplaceAll(string(p), ".", "")
	types := []string{"default" + sfx, "gold_nfs" + sfx, "silver" + sfx}
	for _, name := range types {
		createShareType(t, framework.ShareTypeSpec{Name: name})
	}

	cso := world.StartCSOStandIn(t, framework.CSOStandInOptions{Generation: gen, OperatorImage: predImage})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ClusterOperator storage as the CSO stand-in wrote it:\n%s", strings.Join(cso.History(), "\n"))
		}
	})

	// What the predecessor left: its classes (one the admin's default), its objects, a volume.
	before := map[string]uid{}
	for _, name := range types {
		sc := framework.PredecessorClass(p, name)
		if name == "silver"+sfx {
			sc.Annotations = map[string]string{classplan.DefaultClassAnnotation: "true"}
		}
		created, err := world.Kube.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before["StorageClass/"+sc.Name] = uid(created.UID)
	}
	world.SeedPredecessor(t, p)

	masters := map[string]string{"node-role.kubernetes.io/master": "", "kubernetes.io/os": "linux"}
	runner := world.StartPodRunner(t, framework.PodRunnerOptions{
		Namespace: names.OperatorNamespace, Selector: "name=" + framework.CSOManilaDeployment,
		Images:   map[string]string{predImage: predExec, framework.ImageOurOperator: oursExec},
		NodeName: "podrunner-master-0", NodeLabels: masters,
	})
	operandImages := map[string]string{"registry.example/openshift/ose-csi-driver-manila:v" + string(p): idle}
	for _, img := range framework.CSOStandInImages() {
		operandImages[img] = idle
	}
	for i := range 3 {
		world.StartPodRunner(t, framework.PodRunnerOptions{Namespace: names.OperandNamespace, Selector: "app=openstack-manila-csi",
			Images: operandImages, NodeName: fmt.Sprintf("podrunner-master-%d", i), NodeLabels: masters})
	}

	// The controllers start once the runners' Nodes are Ready and untainted, so every pod they make
	// finds its Node.
	world.StartKubeControllers(t, "deployment-controller", "replicaset-controller", "daemonset-controller", "disruption-controller",
		"persistentvolume-binder-controller", "persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller")

	ns := "cso-swap-" + strings.ReplaceAll(string(p), ".", "-")
	pv, claim := boundVolume(t, world, ns, framework.PredecessorClassName("gold_nfs"+sfx))
	snapshot := volumeSnapshot(t, world, ns, claim.Name)
	t.Cleanup(func() { deleteSwapVolume(t, ns, claim.Name, pv.Name, snapshot) })
	world.WaitForClaimBound(t, claim)

	// The predecessor leads under CSO: its conditions, its PDB, storage Available.
	predPod := waitForCSOOperatorPod(t, predImage, "")
	predTypes := waitForPredecessorLeads(t, cso, p)
	t.Logf("the predecessor %s leads in pod %s with conditions %v", p, predPod, predTypes)
	for key, id := range predecessorUIDs(t, world) {
		before[key] = id
	}

	waitForSteadyOperand(t, "under the predecessor", false)
	dumpOperatorLogsOnFailure(t, runner)
	storage := watchStorageOperator(t)
	driverTrouble := watchConditions(t, func(c operatorv1.OperatorCondition) bool {
		return (strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue) ||
			(strings.HasSuffix(c.Type, "Available") && c.Status != operatorv1.ConditionTrue)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Degraded=True or Available!=True on the ClusterCSIDriver during the swaps:\n%s", strings.Join(driverTrouble(), "\n"))
			t.Logf("ClusterOperator storage not Available or Degraded:\n%s", strings.Join(storage(), "\n"))
		}
	})
	deletions := watchDeletions(t)
	volumeDeletions := watchVolumeDeletions(t, ns)

	// The release: CSO's Deployment gets our image.
	cso.SetOperatorImage(t, framework.ImageOurOperator)
	oursPod := waitForCSOOperatorPod(t, framework.ImageOurOperator, "")
	waitForOnlyCSOOperatorPods(t, framework.ImageOurOperator)
	waitForPodLog(t, runner, oursPod, "successfully acquired lease", 1)
	waitForOursLeads(t, p, types)
	for key, id := range predecessorUIDs(t, world) {
		if before[key] != id {
			t.Errorf("%s was recreated by the takeover (UID %s -> %s)", key, before[key], id)
		}
	}
	waitForSteadyOperand(t, "after the takeover", true)
	onePDBAndEviction(t, "after the takeover")
	networkPoliciesAsCSOAllows(t, gen)

	// A graceful restart: the pod deleted, the ReplicaSet's new pod takes the released lease.
	if err := world.Kube.CoreV1().Pods(names.OperatorNamespace).Delete(ctx, oursPod, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	restarted := waitForCSOOperatorPod(t, framework.ImageOurOperator, oursPod)
	waitForOnlyCSOOperatorPods(t, framework.ImageOurOperator)
	waitForPodLog(t, runner, restarted, "successfully acquired lease", 1)
	waitForPodLog(t, runner, restarted, "Starting the Manila CSI driver controllers", 1)
	waitForOursLeads(t, p, types)
	waitForSteadyOperand(t, "after the graceful restart", true)

	// A SIGKILL: the container restarts in the same pod and takes the lease once the dead process's
	// runs out (library-go's 137 s). Under one CSO generation only: nothing of it depends on CSO's
	// shape, and the lease's run-out is most of this test's time.
	if gen == framework.CSOMain {
		sigkill(t, runner, restarted, p, types)
	}

	// The rollback: CSO's Deployment gets the predecessor's image again.
	cso.SetOperatorImage(t, predImage)
	predPod = waitForCSOOperatorPod(t, predImage, "")
	waitForOnlyCSOOperatorPods(t, predImage)
	waitForPodLog(t, runner, predPod, "successfully acquired lease", 1)
	framework.Eventually(t, csoSwapTimeout, "the predecessor's conditions only", func(ctx context.Context) error {
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var extra []string
		for _, c := range cr.Status.Conditions {
			if !slices.Contains(predTypes, c.Type) {
				extra = append(extra, fmt.Sprintf("%s=%s", c.Type, c.Status))
			}
		}
		if len(extra) > 0 {
			return fmt.Errorf("conditions the predecessor does not write are left: %v", extra)
		}
		return predecessorIsAvailable(cr.Status.Conditions, p)
	})
	onePDBAndEviction(t, "after the rollback")
	if cond, err := storageCondition(ctx, configv1.OperatorAvailable); err != nil || cond.Status != configv1.ConditionTrue {
		t.Errorf("ClusterOperator storage after the rollback: %+v, %v", cond, err)
	}

	// Throughout: storage Available and not Degraded, nothing deleted.
	if got := storage(); len(got) > 0 {
		t.Errorf("ClusterOperator storage was not Available, or Degraded, during the swaps:\n%s", strings.Join(got, "\n"))
	}
	for _, d := range deletions() {
		if !strings.HasPrefix(d, "StorageClass/") || p != framework.Predecessor417 {
			t.Errorf("%s was deleted during the swaps", d)
		}
	}
	if got := volumeDeletions(); len(got) > 0 {
		t.Errorf("deleted during the swaps: %v", got)
	}
	for _, name := range types {
		if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName(name), metav1.GetOptions{}); err != nil {
			t.Errorf("StorageClass %s after the swaps: %v", framework.PredecessorClassName(name), err)
		}
	}
	if defaults := defaultClasses(t, world); !slices.Equal(defaults, []string{framework.PredecessorClassName("silver" + sfx)}) {
		t.Errorf("default classes %v, want only the admin's", defaults)
	}
}

// predecessorIsAvailable fails until the ClusterCSIDriver carries an Available=True that only
// predecessor p writes.
func predecessorIsAvailable(conditions []operatorv1.OperatorCondition, p framework.Predecessor) error {
	want := "ManilaDriverControllerServiceControllerAvailable"
	if p == framework.Predecessor418 {
		want = "OpenStackManilaDriverControllerServiceControllerAvailable"
	}
	if !v1helpers.IsOperatorConditionTrue(conditions, want) {
		return fmt.Errorf("%s is not True", want)
	}
	return nil
}

// waitForPredecessorLeads waits until the predecessor stand-in leads and storage is Available, and
// returns the condition types on the ClusterCSIDriver then: the predecessor's.
func waitForPredecessorLeads(t *testing.T, cso *framework.CSOStandIn, p framework.Predecessor) []string {
	t.Helper()
	var types []string
	framework.Eventually(t, csoSwapTimeout, "the predecessor leading and storage Available", func(ctx context.Context) error {
		lease, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, framework.PredecessorLease(p), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
			return fmt.Errorf("lease %s has no holder", lease.Name)
		}
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := predecessorIsAvailable(cr.Status.Conditions, p); err != nil {
			return err
		}
		if p == framework.Predecessor417 && v1helpers.FindOperatorCondition(cr.Status.Conditions, "SecretSyncDegraded") == nil {
			return fmt.Errorf("no SecretSyncDegraded yet")
		}
		if _, err := world.Kube.PolicyV1().PodDisruptionBudgets(names.OperandNamespace).Get(ctx, controllerPDB, metav1.GetOptions{}); err != nil {
			return err
		}
		cond, err := storageCondition(ctx, configv1.OperatorAvailable)
		if err != nil {
			return err
		}
		if cond.Status != configv1.ConditionTrue {
			return fmt.Errorf("storage Available=%s (%s: %s)", cond.Status, cond.Reason, cond.Message)
		}
		types = nil
		for _, c := range cr.Status.Conditions {
			types = append(types, c.Type)
		}
		sort.Strings(types)
		return nil
	})
	return types
}

// waitForOursLeads waits until this operator has taken over: its Available conditions True, no
// condition left that only a predecessor writes, the controller Deployment rendered with CSO's
// driver image and every predecessor class adopted.
func waitForOursLeads(t *testing.T, p framework.Predecessor, types []string) {
	t.Helper()
	driverImage := ""
	for _, img := range framework.CSOStandInImages() {
		if strings.Contains(img, "/csi-driver-manila:") {
			driverImage = img
		}
	}
	framework.Eventually(t, csoSwapTimeout, "this operator leading", func(ctx context.Context) error {
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range []string{"ManilaDriverControllerServiceControllerAvailable", "ManilaDriverNodeServiceControllerAvailable", "NFSDriverNodeServiceControllerAvailable"} {
			if !v1helpers.IsOperatorConditionTrue(cr.Status.Conditions, c) {
				return fmt.Errorf("%s is not True", c)
			}
		}
		if v1helpers.FindOperatorCondition(cr.Status.Conditions, "StorageClassControllerDegraded") == nil {
			return fmt.Errorf("no StorageClassControllerDegraded: this operator's controllers do not run yet")
		}
		if stale := predecessor.StaleAfterTakeover(cr.Status.Conditions, oursConditionOwners); len(stale) > 0 {
			return fmt.Errorf("the predecessor's conditions are still there: %v", stale)
		}
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(d.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Image == driverImage }) {
			return fmt.Errorf("the controller Deployment is not rendered with %s yet", driverImage)
		}
		for _, name := range types {
			sc, err := world.Kube.StorageV1().StorageClasses().Get(ctx, framework.PredecessorClassName(name), metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !adopted(sc) {
				return fmt.Errorf("StorageClass %s not adopted yet: labels %v, parameters %v", sc.Name, sc.Labels, sc.Parameters)
			}
		}
		return nil
	})
}

func adopted(sc *storagev1.StorageClass) bool {
	return classplan.Owned(sc) && sc.Parameters["csi.storage.k8s.io/controller-expand-secret-name"] == names.DriverSecret
}

const controllerPDB = "openstack-manila-csi-controllerplugin-pdb"

// onePDBAndEviction checks that exactly one PodDisruptionBudget selects the controller's pods and
// that evicting one of them (a Ready one, once the Deployment has rolled out and the budget allows a
// disruption) succeeds.
func onePDBAndEviction(t *testing.T, when string) {
	t.Helper()
	ctx := context.Background()
	var pod corev1.Pod
	framework.Eventually(t, csoSwapTimeout, "a Ready controller pod and a budget that allows its eviction "+when, func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s := d.Status; s.ObservedGeneration < d.Generation || s.UpdatedReplicas != *d.Spec.Replicas || s.AvailableReplicas != *d.Spec.Replicas || s.Replicas != *d.Spec.Replicas {
			return fmt.Errorf("controller Deployment not rolled out: %+v", s)
		}
		pods, err := world.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(framework.PredecessorControllerLabels).String()})
		if err != nil {
			return err
		}
		found := false
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && podIsReady(&p) {
				pod, found = p, true
				break
			}
		}
		if !found {
			return fmt.Errorf("no Ready controller pod among %d", len(pods.Items))
		}
		pdbs, err := world.Kube.PolicyV1().PodDisruptionBudgets(names.OperandNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		var selecting []policyv1.PodDisruptionBudget
		for _, b := range pdbs.Items {
			sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
			if err == nil && !sel.Empty() && sel.Matches(labels.Set(pod.Labels)) {
				selecting = append(selecting, b)
			}
		}
		if len(selecting) != 1 {
			var names []string
			for _, b := range selecting {
				names = append(names, b.Name)
			}
			t.Fatalf("%s: %d PodDisruptionBudgets select the controller's pods: %v", when, len(selecting), names)
		}
		b := selecting[0]
		if b.Status.ObservedGeneration < b.Generation || b.Status.DisruptionsAllowed < 1 {
			return fmt.Errorf("PDB %s: %+v", b.Name, b.Status)
		}
		return nil
	})
	err := world.Kube.CoreV1().Pods(names.OperandNamespace).EvictV1(ctx, &policyv1.Eviction{
		ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}})
	switch {
	case err != nil && strings.Contains(err.Error(), "more than one PodDisruptionBudget"):
		t.Errorf("%s: evicting controller pod %s: %v", when, pod.Name, err)
	case err != nil:
		t.Errorf("%s: evicting controller pod %s was refused: %v", when, pod.Name, err)
	default:
		t.Logf("%s: controller pod %s evicted", when, pod.Name)
	}
}

func podIsReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitForCSOOperatorPod waits for a Ready pod of CSO's operator Deployment running image, other
// than except, and returns its name.
func waitForCSOOperatorPod(t *testing.T, image, except string) string {
	t.Helper()
	name := ""
	framework.Eventually(t, csoSwapTimeout, "a Ready operator pod of "+image, func(ctx context.Context) error {
		pods, err := world.Kube.CoreV1().Pods(names.OperatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "name=" + framework.CSOManilaDeployment})
		if err != nil {
			return err
		}
		var seen []string
		for _, p := range pods.Items {
			seen = append(seen, fmt.Sprintf("%s (%s, %s)", p.Name, p.Spec.Containers[0].Image, p.Status.Phase))
			if p.Name != except && p.DeletionTimestamp == nil && p.Spec.Containers[0].Image == image && podIsReady(&p) {
				name = p.Name
				return nil
			}
		}
		return fmt.Errorf("pods: %v", seen)
	})
	return name
}

// waitForOnlyCSOOperatorPods waits until every pod of CSO's operator Deployment runs image: the
// rollout is over.
func waitForOnlyCSOOperatorPods(t *testing.T, image string) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, "only operator pods of "+image, func(ctx context.Context) error {
		pods, err := world.Kube.CoreV1().Pods(names.OperatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "name=" + framework.CSOManilaDeployment})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			if p.Spec.Containers[0].Image != image || p.DeletionTimestamp != nil {
				return fmt.Errorf("pod %s (%s) is still there", p.Name, p.Spec.Containers[0].Image)
			}
		}
		return nil
	})
}

// waitForPodLog waits until the pod's processes have logged substr at least n times.
func waitForPodLog(t *testing.T, runner *framework.PodRunner, pod, substr string, n int) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, fmt.Sprintf("pod %s logging %q %d times", pod, substr, n), func(context.Context) error {
		if got := strings.Count(strings.ToLower(runner.Log(pod)), strings.ToLower(substr)); got < n {
			return fmt.Errorf("%d times so far", got)
		}
		return nil
	})
}

// storageCondition is ClusterOperator storage's condition of the type.
func storageCondition(ctx context.Context, t configv1.ClusterStatusConditionType) (configv1.ClusterOperatorStatusCondition, error) {
	co, err := world.ConfigV1.ConfigV1().ClusterOperators().Get(ctx, framework.CSOClusterOperator, metav1.GetOptions{})
	if err != nil {
		return configv1.ClusterOperatorStatusCondition{}, err
	}
	for _, c := range co.Status.Conditions {
		if c.Type == t {
			return c, nil
		}
	}
	return configv1.ClusterOperatorStatusCondition{}, fmt.Errorf("ClusterOperator storage has no %s", t)
}

// watchStorageOperator records every Available other than True and every Degraded=True that
// ClusterOperator storage shows until the test ends; a watch that ends early is recorded too.
func watchStorageOperator(t *testing.T) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := world.ConfigV1.ConfigV1().ClusterOperators().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + framework.CSOClusterOperator})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			co, ok := ev.Object.(*configv1.ClusterOperator)
			if !ok {
				continue
			}
			for _, c := range co.Status.Conditions {
				if (c.Type == configv1.OperatorAvailable && c.Status != configv1.ConditionTrue) ||
					(c.Type == configv1.OperatorDegraded && c.Status == configv1.ConditionTrue) {
					mu.Lock()
					seen = append(seen, fmt.Sprintf("%s %s=%s (%s): %s", time.Now().Format("15:04:05.000"), c.Type, c.Status, c.Reason, c.Message))
					mu.Unlock()
				}
			}
		}
		if ctx.Err() == nil {
			mu.Lock()
			seen = append(seen, time.Now().Format("15:04:05.000")+" the watch of ClusterOperator storage ended early")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, seen...)
	}
}

// watchVolumeDeletions records deletions of PersistentVolumes, of claims and VolumeSnapshots in ns,
// and of VolumeSnapshotClasses until the test ends.
func watchVolumeDeletions(t *testing.T, ns string) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var seen []string
	var wg sync.WaitGroup
	for _, r := range []struct {
		gvr       schema.GroupVersionResource
		namespace string
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}, ""},
		{schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, ns},
		{volumeSnapshotGVR, ns},
		{snapshotClassGVR, ""},
	} {
		w, err := world.Dynamic.Resource(r.gvr).Namespace(r.namespace).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range w.ResultChan() {
				if m, ok := ev.Object.(metav1.Object); ok && ev.Type == watch.Deleted {
					mu.Lock()
					seen = append(seen, r.gvr.Resource+"/"+m.GetName())
					mu.Unlock()
				}
			}
		}()
		t.Cleanup(w.Stop)
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string{}, seen...)
	}
}

// deleteSwapVolume deletes the test's VolumeSnapshot, claim and volume and waits until they are
// gone (the volume controllers still run).
func deleteSwapVolume(t *testing.T, ns, claim, pv, snapshot string) {
	ctx := context.Background()
	_ = world.Dynamic.Resource(volumeSnapshotGVR).Namespace(ns).Delete(ctx, snapshot, metav1.DeleteOptions{})
	_ = world.Kube.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, claim, metav1.DeleteOptions{})
	_ = world.Kube.CoreV1().PersistentVolumes().Delete(ctx, pv, metav1.DeleteOptions{})
	framework.Eventually(t, framework.DefaultTimeout, "the test's volume gone", func(ctx context.Context) error {
		if _, err := world.Kube.CoreV1().PersistentVolumeClaims(ns).Get(ctx, claim, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("claim %s: %v", claim, err)
		}
		if _, err := world.Kube.CoreV1().PersistentVolumes().Get(ctx, pv, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return fmt.Errorf("volume %s: %v", pv, err)
		}
		return nil
	})
}

// waitForSteadyOperand waits until the operand's controller Deployment and node DaemonSets have rolled
// out and every pod is available, and, when clean, until no condition on the ClusterCSIDriver is
// Degraded=True and storage is Available and not Degraded.
func waitForSteadyOperand(t *testing.T, when string, clean bool) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, "the operand steady "+when, func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s := d.Status; s.ObservedGeneration < d.Generation || s.UpdatedReplicas != *d.Spec.Replicas || s.AvailableReplicas != *d.Spec.Replicas || s.Replicas != *d.Spec.Replicas {
			return fmt.Errorf("Deployment %s: %+v", d.Name, s)
		}
		for _, name := range []string{framework.NodeDaemonSet, framework.NFSNodeDaemonSet} {
			ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if s := ds.Status; s.ObservedGeneration < ds.Generation || s.DesiredNumberScheduled == 0 || s.UpdatedNumberScheduled != s.DesiredNumberScheduled ||
				s.NumberAvailable != s.DesiredNumberScheduled {
				return fmt.Errorf("DaemonSet %s: %+v", name, s)
			}
		}
		if !clean {
			return nil
		}
		cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range cr.Status.Conditions {
			if strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue {
				return fmt.Errorf("%s=True (%s): %s", c.Type, c.Reason, c.Message)
			}
		}
		for _, ct := range []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorDegraded} {
			cond, err := storageCondition(ctx, ct)
			if err != nil {
				return err
			}
			if (ct == configv1.OperatorAvailable) != (cond.Status == configv1.ConditionTrue) {
				return fmt.Errorf("storage %s=%s (%s): %s", ct, cond.Status, cond.Reason, cond.Message)
			}
		}
		return nil
	})
}

// dumpOperatorLogsOnFailure writes every operator pod's log to a directory that outlives the test
// when it fails, and says where.
func dumpOperatorLogsOnFailure(t *testing.T, runner *framework.PodRunner) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		dir, err := os.MkdirTemp("", "csoswap-logs-")
		if err != nil {
			t.Log(err)
			return
		}
		for _, rec := range runner.Records() {
			_ = os.WriteFile(filepath.Join(dir, rec.Name+".log"), []byte(runner.Log(rec.Name)), 0o644)
		}
		t.Logf("the operator pods' logs are in %s", dir)
	})
}

// networkPoliciesAsCSOAllows: under CSO main's role the operand namespace gets its network policies;
// under release-4.17's, which grants none, a condition names the missing verbs and nothing is Degraded
// (the swap's watch fails on any Degraded).
func networkPoliciesAsCSOAllows(t *testing.T, gen framework.CSOGeneration) {
	t.Helper()
	if gen == framework.CSO417 {
		cond := world.WaitForCondition(t, operator.NetworkPoliciesUnapplied, operatorv1.ConditionTrue)
		if cond.Reason != operator.ReasonMissingRight || !strings.Contains(cond.Message, "networkpolicies") {
			t.Errorf("%s: %s %q, want the missing right named", cond.Type, cond.Reason, cond.Message)
		}
		return
	}
	framework.Eventually(t, framework.DefaultTimeout, "the operand namespace's default-deny NetworkPolicy", func(ctx context.Context) error {
		_, err := world.Kube.NetworkingV1().NetworkPolicies(names.OperandNamespace).Get(ctx, "default-deny", metav1.GetOptions{})
		return err
	})
}

// sigkill kills our operator's process in pod restarted and waits until the restarted container leads
// and the operand is steady again.
func sigkill(t *testing.T, runner *framework.PodRunner, restarted string, p framework.Predecessor, types []string) {
	t.Helper()
	logged := func(substr string) int {
		return strings.Count(strings.ToLower(runner.Log(restarted)), strings.ToLower(substr))
	}
	leases, starts := logged("successfully acquired lease"), logged("Starting the Manila CSI driver controllers")
	if err := runner.Kill(restarted); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 4*time.Minute, "the restarted process leading", func(context.Context) error {
		if got := logged("successfully acquired lease"); got <= leases {
			return fmt.Errorf("pod %s acquired the lease %d times", restarted, got)
		}
		return nil
	})
	waitForPodLog(t, runner, restarted, "Starting the Manila CSI driver controllers", starts+1)
	waitForOursLeads(t, p, types)
	waitForSteadyOperand(t, "after the SIGKILL", true)
}
