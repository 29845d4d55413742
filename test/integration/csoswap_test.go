package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoSwapTimeout bounds each wait of the image swap: a rollout of the operator's Deployment, the
// lease (library-go's retry period is 26 s) and the operand's rollouts.
const csoSwapTimeout = 3 * time.Minute

// ourConditions are this operator's condition types, for predecessor.StaleAfterTakeover as the
// operator calls it.
var ourConditions = operator.OwnConditions()

func adopted(sc *storagev1.StorageClass) bool {
	return classplan.Owned(sc) && sc.Parameters["csi.storage.k8s.io/controller-expand-secret-name"] == names.DriverSecret
}

const controllerPDB = "openstack-manila-csi-controllerplugin-pdb"

// onePDBAndEviction checks that exactly one PodDisruptionBudget selects the controller's pods and
// that evicting one of them (a Ready one, once the Deployment has rolled out and the budget allows a
// disruption) succeeds, tried again as a drain does while the budget answers 429.
func onePDBAndEviction(t *testing.T, when string) {
	t.Helper()
	var pod corev1.Pod
	var evictErr error
	framework.Eventually(t, csoSwapTimeout, "a Ready controller pod evicted, as its budget allows, "+when, func(ctx context.Context) error {
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
		selecting, err := budgetsSelecting(ctx, world.Kube, names.OperandNamespace, pod.Labels)
		if err != nil {
			return err
		}
		if len(selecting) != 1 {
			t.Fatalf("%s: %d PodDisruptionBudgets select the controller's pods: %v", when, len(selecting), budgetNames(selecting))
		}
		b := selecting[0]
		if b.Status.ObservedGeneration < b.Generation || b.Status.DisruptionsAllowed < 1 {
			return fmt.Errorf("PDB %s: %+v", b.Name, b.Status)
		}
		// As a drain evicts: a budget spent since it was read (a pod of a rollout not Ready yet) is
		// 429, to try again; anything else is an answer.
		evictErr = world.Kube.CoreV1().Pods(names.OperandNamespace).EvictV1(ctx, &policyv1.Eviction{
			ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace}})
		if apierrors.IsTooManyRequests(evictErr) {
			return fmt.Errorf("evicting controller pod %s: %w", pod.Name, evictErr)
		}
		return nil
	})
	switch err := evictErr; {
	case err != nil && strings.Contains(err.Error(), "more than one PodDisruptionBudget"):
		t.Errorf("%s: evicting controller pod %s: %v", when, pod.Name, err)
	case err != nil:
		t.Errorf("%s: evicting controller pod %s was refused: %v", when, pod.Name, err)
	default:
		t.Logf("%s: controller pod %s evicted", when, pod.Name)
	}
}

// budgetsSelecting are the PodDisruptionBudgets of namespace that select pods of podLabels.
func budgetsSelecting(ctx context.Context, kube kubernetes.Interface, namespace string, podLabels map[string]string) ([]policyv1.PodDisruptionBudget, error) {
	pdbs, err := kube.PolicyV1().PodDisruptionBudgets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var selecting []policyv1.PodDisruptionBudget
	for _, b := range pdbs.Items {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err == nil && !sel.Empty() && sel.Matches(labels.Set(podLabels)) {
			selecting = append(selecting, b)
		}
	}
	return selecting, nil
}

func budgetNames(budgets []policyv1.PodDisruptionBudget) []string {
	var out []string
	for _, b := range budgets {
		out = append(out, b.Name)
	}
	return out
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
	return waitForOperatorPod(t, world.Kube, names.OperatorNamespace, image, except).Name
}

// waitForOperatorPod waits for a Ready pod of CSO's operator Deployment in ns (the HCP namespace
// hosted) running image, other than except.
func waitForOperatorPod(t *testing.T, kube kubernetes.Interface, ns, image, except string) *corev1.Pod {
	t.Helper()
	var found *corev1.Pod
	framework.Eventually(t, csoSwapTimeout, "a Ready operator pod of "+image+" in "+ns, func(ctx context.Context) error {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "name=" + framework.CSOManilaDeployment})
		if err != nil {
			return err
		}
		var seen []string
		for i, p := range pods.Items {
			seen = append(seen, fmt.Sprintf("%s (%s, %s)", p.Name, p.Spec.Containers[0].Image, p.Status.Phase))
			if p.Name != except && p.DeletionTimestamp == nil && p.Spec.Containers[0].Image == image && podIsReady(&p) {
				found = &pods.Items[i]
				return nil
			}
		}
		return fmt.Errorf("pods: %v", seen)
	})
	return found
}

// waitForOnlyCSOOperatorPods waits until every pod of CSO's operator Deployment runs image: the
// rollout is over.
func waitForOnlyCSOOperatorPods(t *testing.T, image string) {
	t.Helper()
	waitForOnlyOperatorPods(t, world.Kube, names.OperatorNamespace, image)
}

// waitForOnlyOperatorPods is waitForOnlyCSOOperatorPods in ns (the HCP namespace hosted).
func waitForOnlyOperatorPods(t *testing.T, kube kubernetes.Interface, ns, image string) {
	t.Helper()
	framework.Eventually(t, csoSwapTimeout, "only operator pods of "+image+" in "+ns, func(ctx context.Context) error {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "name=" + framework.CSOManilaDeployment})
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
	waitForPodLogWithin(t, runner, pod, substr, n, csoSwapTimeout)
}

// leaseRunOutTimeout bounds a wait for a leader that must first wait out a killed holder's lease:
// library-go's lease duration (137 s) from the candidate's first look at it, then the candidate's next
// try, which client-go jitters up to 2.2 retry periods (26 s each), besides csoSwapTimeout for the rest.
const leaseRunOutTimeout = csoSwapTimeout + 137*time.Second + 58*time.Second

// waitForPodLogWithin is waitForPodLog with its own deadline.
func waitForPodLogWithin(t *testing.T, runner *framework.PodRunner, pod, substr string, n int, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, fmt.Sprintf("pod %s logging %q %d times", pod, substr, n), func(context.Context) error {
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
	if c := findClusterOperatorCondition(co, t); c != nil {
		return *c, nil
	}
	return configv1.ClusterOperatorStatusCondition{}, fmt.Errorf("ClusterOperator storage has no %s", t)
}

func findClusterOperatorCondition(co *configv1.ClusterOperator, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range co.Status.Conditions {
		if co.Status.Conditions[i].Type == t {
			return &co.Status.Conditions[i]
		}
	}
	return nil
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

// dumpOperatorLogsOnFailure fails the test where an operator pod's log shows a write of a condition
// type its writer does not declare, and writes every operator pod's log to a directory that outlives
// the test when it fails, and says where (under framework.ArtifactsDirEnv the pod runner does).
func dumpOperatorLogsOnFailure(t *testing.T, runner *framework.PodRunner) {
	t.Cleanup(func() {
		for _, rec := range runner.Records() {
			if undeclared := framework.LinesWith(runner.Log(rec.Name), condition.ErrUndeclared.Error()); undeclared != "" {
				t.Errorf("pod %s wrote a condition type its writer does not declare (pkg/operator/writers.go):\n%s", rec.Name, undeclared)
			}
		}
		if t.Failed() && os.Getenv(framework.ArtifactsDirEnv) != "" {
			return // the pod runner keeps them there
		}
		if !t.Failed() && os.Getenv("KEEP_POD_LOGS") == "" {
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
// under release-4.20's and release-4.17's, which grant none, a condition names the missing verbs and nothing is Degraded
// (the swap's watch fails on any Degraded).
func networkPoliciesAsCSOAllows(t *testing.T, gen framework.CSOGeneration) {
	t.Helper()
	if gen != framework.CSOMain { // CSO grants network policies from OpenShift 5.0 (CSO main) on
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
