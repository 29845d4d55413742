package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The operator as a cluster runs it: its Deployment from manifests/, with the update strategy
// cluster-storage-operator's copy has (strategy {}: RollingUpdate, 25% surge and unavailable, so with
// one replica a new pod starts and the old one goes once the new one is available; manifests/ says
// Recreate, which only a CVO-managed install uses), rolled by the real deployment and ReplicaSet
// controllers and run by the pod runner (scheduler and kubelet of one master node) with the manifest's
// image mapped to the built binary. The pod becomes Ready (its /readyz probe) and the operator
// converges; a release's new image rolls the Deployment: a second pod starts and the old pod gets
// SIGTERM only after the new one is Ready, waits for a predecessor as long as its grace allows and exits
// 0 within it (the pod runner kills it at the grace's end, as a kubelet does), the new process takes the
// released lease and reconciles, and the Deployment ends with one available replica. A SIGKILLed
// process restarts in the same pod (restartCount 1) and the Deployment is available again.
func TestPodRunnerRollsTheOperatorDeployment(t *testing.T) {
	ctx := context.Background()
	bin := operatorBinary(t)
	image := freshClusterForBinary(t)
	manifest := operatorDeployment(t)
	selector := labels.SelectorFromSet(manifest.Spec.Selector.MatchLabels).String()
	released := manifest.Spec.Template.Spec.Containers[0].Image
	next := strings.TrimSuffix(released, ":latest") + ":next-release"

	restoreOperatorDeployment(t)
	var runner *framework.PodRunner
	t.Cleanup(func() { checkPodLogs(t, runner) }) // after the runner stopped: every line is written
	updateOperatorDeployment(t, func(d *appsv1.Deployment) { d.Spec.Strategy = appsv1.DeploymentStrategy{} })
	world.StartKubeControllers(t, "deployment-controller", "replicaset-controller")
	runner = world.StartPodRunner(t, framework.PodRunnerOptions{
		Namespace: names.OperatorNamespace, Selector: selector,
		Images:   map[string]string{released: bin, next: bin},
		NodeName: "podrunner-master-0", NodeLabels: map[string]string{"node-role.kubernetes.io/master": ""},
	})

	first := waitForReadyOperatorPod(t, "")
	converged(t, image)
	world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionFalse)
	waitForLogOf(t, runner, first, "successfully acquired lease", framework.DefaultTimeout)
	waitForRollout(t, 1)

	// The release: cluster-storage-operator swaps the operator's image.
	updateOperatorDeployment(t, func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = next })
	second := waitForReadyOperatorPod(t, first)
	waitForRollout(t, 2)
	framework.Eventually(t, framework.DefaultTimeout, "the old pod's record", func(context.Context) error {
		if rec, _ := runner.Record(first); rec.DeletedAt.IsZero() {
			return fmt.Errorf("pod %s not deleted yet: %+v", first, rec)
		}
		return nil
	})
	old, _ := runner.Record(first)
	updated, _ := runner.Record(second)
	t.Logf("rollout: new pod %s started %s, Ready %s; old pod %s SIGTERM %s, exited %s (code %d), deleted %s",
		second, clock(updated.StartedAt), clock(updated.ReadyAt), first, clock(old.SIGTERMAt), clock(old.ExitedAt), old.ExitCode, clock(old.DeletedAt))
	switch {
	case updated.ReadyAt.IsZero() || old.SIGTERMAt.IsZero():
		t.Errorf("the new pod's Ready (%s) or the old pod's SIGTERM (%s) was never recorded", clock(updated.ReadyAt), clock(old.SIGTERMAt))
	case !old.SIGTERMAt.After(updated.ReadyAt):
		t.Errorf("the old pod got SIGTERM at %s, before the new pod was Ready at %s", clock(old.SIGTERMAt), clock(updated.ReadyAt))
	}
	if !updated.StartedAt.Before(old.SIGTERMAt) {
		t.Errorf("the new pod's process started at %s, not before the old one's SIGTERM at %s: no overlap", clock(updated.StartedAt), clock(old.SIGTERMAt))
	}
	// The pod runner kills the processes at the end of the grace period, as a kubelet does: exit code 0
	// and no SIGKILL is an exit within it. The rollout brings another image, so the old process waited
	// for a predecessor as long as its grace allowed.
	if old.ExitedAt.IsZero() || old.ExitCode != 0 || !old.SIGKILLAt.IsZero() {
		t.Errorf("the old operator did not exit 0 within its grace period of %s after SIGTERM: %+v", old.Grace, old)
	}
	if got := grepLines(runner.Log(first), "Stopping after a rollout: waiting until"); got == "" {
		t.Errorf("the old operator did not wait for a predecessor after the rollout to another image")
	}
	if !old.DeletedAt.After(old.ExitedAt) {
		t.Errorf("the old pod was deleted at %s, before its process exited at %s", clock(old.DeletedAt), clock(old.ExitedAt))
	}
	// The old process released its lease on SIGTERM; the new one takes it at its next try and
	// reconciles. client-go tries every retry period (library-go's 26 s) with a jitter of up to 1.2
	// of it: up to 57 s after the release the operator has no leader, on a cluster as here.
	waitForLogOf(t, runner, second, "successfully acquired lease", 90*time.Second)
	t.Logf("the new pod took the lease: %s", grepLines(runner.Log(second), "uccessfully acquired lease"))
	if err := world.Kube.StorageV1().CSIDrivers().Delete(ctx, names.CSIDriverName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForCSIDriver(t)
	converged(t, image)

	// A crash: the process is SIGKILLed; the kubelet restarts the container in the same pod.
	availability := watchDeploymentAvailability(t)
	if err := runner.Kill(second); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the killed container restarted and Ready", func(ctx context.Context) error {
		pod, err := world.Kube.CoreV1().Pods(names.OperatorNamespace).Get(ctx, second, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(pod.Status.ContainerStatuses) != 1 {
			return fmt.Errorf("container statuses %+v", pod.Status.ContainerStatuses)
		}
		cs := pod.Status.ContainerStatuses[0]
		if cs.RestartCount != 1 || !cs.Ready || cs.State.Running == nil {
			return fmt.Errorf("restartCount %d, ready %v, state %+v", cs.RestartCount, cs.Ready, cs.State)
		}
		if term := cs.LastTerminationState.Terminated; term == nil || term.ExitCode != 137 {
			return fmt.Errorf("last termination %+v, want exit code 137 (SIGKILL)", cs.LastTerminationState)
		}
		return nil
	})
	waitForRollout(t, 2)
	if rec, _ := runner.Record(second); rec.Containers[0].Restarts != 1 || len(rec.Containers[0].Starts) != 2 {
		t.Errorf("after the kill the runner recorded %+v, want one restart", rec.Containers[0])
	}
	pods := operatorPods(t)
	if len(pods) != 1 || pods[0].Name != second {
		t.Errorf("after the kill the pods are %v, want only %s (a restart, not a new pod)", podNames(pods), second)
	}
	t.Logf("the Deployment's Available condition across the kill (a killed single replica is unready until its restart passes /readyz, as on a cluster): %s", availability())
}

// checkPodLogs fails the test when a pod's log shows one of the world's secrets or a request refused
// under the operator's ServiceAccount (a missing RBAC rule in manifests/).
func checkPodLogs(t *testing.T, runner *framework.PodRunner) {
	if runner == nil {
		return
	}
	for _, rec := range runner.Records() {
		log := runner.Log(rec.Name)
		for _, sentinel := range world.OpenStack.Sentinels() {
			if strings.Contains(log, sentinel) {
				t.Errorf("pod %s's log shows one of the world's secrets:\n%s", rec.Name, framework.RedactSentinel(grepLines(log, sentinel), sentinel))
			}
		}
		if denied := grepLines(log, "forbidden"); denied != "" {
			t.Errorf("pod %s was refused requests under its ServiceAccount:\n%s", rec.Name, denied)
		}
	}
}

// restoreOperatorDeployment puts the operator's Deployment back as the test found it when the test
// ends, after the controllers and the pod runner stopped: the pods and ReplicaSets they made deleted,
// the spec and annotations restored, the lease of a killed process removed.
func restoreOperatorDeployment(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	deployments := world.Kube.AppsV1().Deployments(names.OperatorNamespace)
	orig, err := deployments.Get(ctx, names.OperatorName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		pods := world.Kube.CoreV1().Pods(names.OperatorNamespace)
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(orig.Spec.Selector.MatchLabels).String()})
		if err != nil {
			t.Error(err)
		}
		for _, p := range list.Items {
			if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		}
		rss, err := world.Kube.AppsV1().ReplicaSets(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Error(err)
		}
		for _, rs := range rss.Items {
			if owner := metav1.GetControllerOf(&rs); owner != nil && owner.UID == orig.UID {
				if err := world.Kube.AppsV1().ReplicaSets(names.OperatorNamespace).Delete(ctx, rs.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					t.Error(err)
				}
			}
		}
		updateOperatorDeployment(t, func(d *appsv1.Deployment) { d.Spec, d.Annotations = orig.Spec, orig.Annotations })
		err = world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Delete(ctx, names.OperatorName+"-lock", metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Error(err)
		}
	})
}

func updateOperatorDeployment(t *testing.T, change func(*appsv1.Deployment)) {
	t.Helper()
	deployments := world.Kube.AppsV1().Deployments(names.OperatorNamespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := deployments.Get(context.Background(), names.OperatorName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(d)
		_, err = deployments.Update(context.Background(), d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("updating the operator's Deployment: %v", err)
	}
}

func operatorPods(t *testing.T) []corev1.Pod {
	t.Helper()
	list, err := world.Kube.CoreV1().Pods(names.OperatorNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "name=" + names.OperatorName})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func podNames(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	sort.Strings(out)
	return out
}

// waitForReadyOperatorPod waits for a Ready operator pod other than except and returns its name.
func waitForReadyOperatorPod(t *testing.T, except string) string {
	t.Helper()
	name := ""
	framework.Eventually(t, 2*framework.DefaultTimeout, "a Ready operator pod other than "+except, func(ctx context.Context) error {
		list, err := world.Kube.CoreV1().Pods(names.OperatorNamespace).List(ctx, metav1.ListOptions{LabelSelector: "name=" + names.OperatorName})
		if err != nil {
			return err
		}
		var seen []string
		for _, p := range list.Items {
			seen = append(seen, fmt.Sprintf("%s (node %q, phase %s)", p.Name, p.Spec.NodeName, p.Status.Phase))
			if p.Name == except || p.DeletionTimestamp != nil {
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					name = p.Name
					return nil
				}
			}
		}
		return fmt.Errorf("pods: %v", seen)
	})
	return name
}

// waitForRollout waits until the operator's Deployment has rolled out template generation gen: one
// replica, updated and available, and no other pod.
func waitForRollout(t *testing.T, revision int) {
	t.Helper()
	framework.Eventually(t, 2*framework.DefaultTimeout, fmt.Sprintf("the operator Deployment's revision %d rolled out", revision), func(ctx context.Context) error {
		d, err := world.Kube.AppsV1().Deployments(names.OperatorNamespace).Get(ctx, names.OperatorName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s := d.Status
		if d.Annotations["deployment.kubernetes.io/revision"] != fmt.Sprint(revision) || s.ObservedGeneration < d.Generation ||
			s.Replicas != 1 || s.UpdatedReplicas != 1 || s.AvailableReplicas != 1 || s.UnavailableReplicas != 0 {
			return fmt.Errorf("revision %s, generation %d, status %+v", d.Annotations["deployment.kubernetes.io/revision"], d.Generation, s)
		}
		if pods := operatorPods(t); len(pods) != 1 {
			return fmt.Errorf("pods %v", podNames(pods))
		}
		return nil
	})
}

func waitForLogOf(t *testing.T, runner *framework.PodRunner, pod, substr string, timeout time.Duration) {
	t.Helper()
	framework.Eventually(t, timeout, "pod "+pod+" logging "+substr, func(context.Context) error {
		if !strings.Contains(strings.ToLower(runner.Log(pod)), strings.ToLower(substr)) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
}

// watchDeploymentAvailability records the operator Deployment's Available condition until the test
// ends; the returned function describes its transitions so far.
func watchDeploymentAvailability(t *testing.T) func() string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := world.Kube.AppsV1().Deployments(names.OperatorNamespace).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + names.OperatorName})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	last := ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*appsv1.Deployment)
			if !ok || ev.Type == watch.Error {
				continue
			}
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentAvailable && string(c.Status)+c.Reason != last {
					last = string(c.Status) + c.Reason
					mu.Lock()
					seen = append(seen, fmt.Sprintf("%s %s (%s, available %d)", clock(time.Now()), c.Status, c.Reason, d.Status.AvailableReplicas))
					mu.Unlock()
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Join(seen, " -> ")
	}
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.Format("15:04:05.000")
}
