package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// realNodeClaim is a bound claim, already published on a stand-in node, that pods on a real node
// use.
type realNodeClaim struct {
	// Node is the real node's address; Images what it runs besides pause and busybox.
	Node   string
	Images map[string]framework.NodeImage
	// Relay are the ports of this machine the node plugins dial (OpenStack's, the storage's).
	Relay []int
	// DaemonSets are the operator's node DaemonSets whose pods run there; Drivers the CSI drivers the
	// node's kubelet registers through them.
	DaemonSets []string
	Drivers    []string
	Claim      *corev1.PersistentVolumeClaim
	PV         *corev1.PersistentVolume
	// Other is the volume's publish target on a stand-in node; InCeph reads a file of the volume
	// as Ceph holds it (name relative to the volume's root).
	Other  string
	InCeph func(name string) (string, error)
	// MountType is the file system type of the publish target in the node's mount table.
	MountType string
}

// start runs the real node for the rest of the test: the operator's node DaemonSets run there as
// rendered (the DaemonSet controller and kube-scheduler place them; the kubelet runs them, with their
// hostPaths, mount propagation, registrars' sockets and probes, registers the drivers, and every
// container is Ready).
func (r realNodeClaim) start(t *testing.T, w *framework.World) *framework.RealNode {
	t.Cleanup(func() { forgetRealNode(t, r.Node) }) // after the node and the controllers stop
	// The node lifecycle controller takes the kubelet's not-ready taint off the node once it is
	// Ready, as on a cluster: a pod that does not tolerate it (the upstream suite's) is then placed.
	w.StartKubeControllers(t, "daemonset-controller", "node-lifecycle-controller")
	w.StartScheduler(t)
	node := w.StartRealNode(t, r.Node, r.Images)
	for _, port := range r.Relay {
		node.Relay(t, port)
	}
	waitForDriversRegistered(t, node, r.Drivers...)
	waitForNoTaint(t, w, r.Node, "node.kubernetes.io/not-ready")
	waitForPodsReady(t, w, r.Node, r.DaemonSets...)
	return node
}

// mountInAPod: the kubelet of the started node stages and publishes the claim for a pod through
// manila-csi-plugin, which reaches Keystone and Manila and forwards to the storage's node plugin,
// whose mount (made by the client in its own image) reaches the pod through the Bidirectional mount
// of the kubelet's directories. The pod writes a file the stand-in node and Ceph read, and reads one
// the stand-in node wrote; once it has ended the kubelet unpublishes (and unstages) and no mount of
// that type is left on the node.
func (r realNodeClaim) mountInAPod(t *testing.T, w *framework.World, node *framework.RealNode) {
	fromStandIn := fmt.Sprintf("written through %s at %s\n", r.Other, time.Now().UTC().Format(time.RFC3339Nano))
	writeFile(t, filepath.Join(r.Other, "from-stand-in.txt"), fromStandIn)
	const said = "written by a pod on a real node"
	// It writes, then waits for the test's word through the stand-in node before it reads and ends,
	// so that the test sees the mount while the pod runs.
	pod := r.startPod(t, w, "real-node-pod", r.Claim.Name, "echo '"+said+"' > /shared/from-real-node.txt && "+
		"while [ ! -e /shared/done ]; do sleep 1; done && cat /shared/from-stand-in.txt > /dev/termination-log")

	// The pod's write shows on the stand-in node and in Ceph: the pod's mount is the volume.
	readBackOn(t, filepath.Join(r.Other, "from-real-node.txt"), said+"\n")
	if got, err := r.InCeph("from-real-node.txt"); err != nil || got != said+"\n" {
		t.Fatalf("read through Ceph %q, %v; want %q", got, err, said+"\n")
	}
	r.mountOf(t, w, node, pod, r.PV)

	writeFile(t, filepath.Join(r.Other, "done"), "")
	succeededWith(t, w, pod, fromStandIn)
	t.Logf("pod %s read what the stand-in node wrote: %q", pod.Name, fromStandIn)
	// An ended pod's volumes are torn down: the kubelet unpublishes (and unstages) through the drivers.
	r.waitForUnmounted(t, node)
	deletePodAndWait(t, pod.Namespace, pod.Name)
	for _, f := range []string{"done", "from-stand-in.txt", "from-real-node.txt"} {
		if out, err := fsOp("rm", filepath.Join(r.Other, f)); err != nil {
			t.Fatalf("removing %s: %v: %s", f, err, out)
		}
	}
}

// readsRestored runs a pod on the real node with the claim restored from a snapshot: it must find
// hello.txt as it was written before the snapshot (before) and not after-snapshot.txt, written after.
// The kubelet unmounts it once the pod has ended.
func (r realNodeClaim) readsRestored(t *testing.T, w *framework.World, node *framework.RealNode, restored, before string) {
	t.Helper()
	pod := r.startPod(t, w, "pod-restored", restored,
		"if [ -e /shared/after-snapshot.txt ]; then echo 'has a file written after the snapshot' > /dev/termination-log; exit 1; fi; "+
			"cat /shared/hello.txt > /dev/termination-log")
	succeededWith(t, w, pod, before)
	t.Logf("pod %s on %s read the restored volume: %q, and no file written after the snapshot", pod.Name, r.Node, before)
	r.waitForUnmounted(t, node)
	deletePodAndWait(t, pod.Namespace, pod.Name)
}

// afterTheChange is reply.txt as mountOutlivesCAAndProxyChange leaves it in the volume.
const afterTheChange = "written through the stand-in node after the change\n"

// mountOutlivesCAAndProxyChange: a pod on the real node mounts the claim, then the cluster's trusted CA
// bundle and proxy change. The roll replaces the pod of DaemonSet rolled (the Manila node plugin, which
// calls Keystone and Manila) on the node and leaves the pod of kept (the storage's node plugin, whose
// processes serve the mounts); the pod then reads, through its mount from before the change, a file
// the stand-in node writes after it, and the kubelet unmounts through the new Manila node plugin.
func (r realNodeClaim) mountOutlivesCAAndProxyChange(t *testing.T, w *framework.World, node *framework.RealNode, rolled, kept string) {
	t.Helper()
	pod := r.startPod(t, w, "pod-across-change", r.Claim.Name,
		"touch /shared/reader-up && while [ ! -e /shared/changed ]; do sleep 1; done && cat /shared/reply.txt > /dev/termination-log")
	r.mountOf(t, w, node, pod, r.PV)
	readBackOn(t, filepath.Join(r.Other, "reader-up"), "")
	rolledBefore := readyPodOf(t, w, r.Node, rolled, "")
	keptBefore := readyPodOf(t, w, r.Node, kept, "")
	changeCAAndProxy(t, []string{rolled}, []string{kept})
	rolledAfter := readyPodOf(t, w, r.Node, rolled, rolledBefore.UID)
	t.Logf("the roll replaced %s's pod on %s: %s by %s", rolled, r.Node, rolledBefore.Name, rolledAfter.Name)
	if keptAfter := readyPodOf(t, w, r.Node, kept, ""); keptAfter.UID != keptBefore.UID {
		t.Errorf("%s's pod on %s was replaced (%s by %s): the change rolled it", kept, r.Node, keptBefore.Name, keptAfter.Name)
	}
	writeFile(t, filepath.Join(r.Other, "reply.txt"), afterTheChange)
	writeFile(t, filepath.Join(r.Other, "changed"), "")
	succeededWith(t, w, pod, afterTheChange)
	t.Logf("pod %s read through its mount from before the change: %q", pod.Name, afterTheChange)
	r.waitForUnmounted(t, node)
	deletePodAndWait(t, pod.Namespace, pod.Name)
}

// startPod runs a busybox pod on the real node with claim mounted at /shared, running script (what it
// writes to /dev/termination-log is the pod's message); it is deleted when the test ends.
func (r realNodeClaim) startPod(t *testing.T, w *framework.World, name, claim, script string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: r.Claim.Namespace},
		Spec: corev1.PodSpec{
			NodeName: r.Node, RestartPolicy: corev1.RestartPolicyNever,
			AutomountServiceAccountToken: new(bool),
			Volumes: []corev1.Volume{{Name: "shared", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}},
			Containers: []corev1.Container{{
				Name: "rw", Image: framework.BusyboxImage, Command: []string{"sh", "-c", script},
				VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/shared"}},
			}},
		},
	}
	created, err := w.Kube.CoreV1().Pods(pod.Namespace).Create(context.Background(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePodAndWait(t, pod.Namespace, pod.Name) })
	return created
}

// mountOf waits until the pod runs and checks that the kubelet has published pv for it, a mount of
// the claim's type at the pod's volume directory; it returns the mount.
func (r realNodeClaim) mountOf(t *testing.T, w *framework.World, node *framework.RealNode, pod *corev1.Pod, pv *corev1.PersistentVolume) framework.Mount {
	t.Helper()
	target := fmt.Sprintf("/var/lib/kubelet/pods/%s/volumes/kubernetes.io~csi/%s/mount", pod.UID, pv.Name)
	var mount framework.Mount
	framework.Eventually(t, realNodeTimeout, "the kubelet of "+r.Node+" publishing "+pv.Name+" for pod "+pod.Name, func(context.Context) error {
		mounts, err := node.Mounts("/var/lib/kubelet/pods/" + string(pod.UID))
		if err != nil {
			return err
		}
		m, ok := mounts[target]
		if !ok || m.FSType != r.MountType {
			return fmt.Errorf("the node's mounts of pod %s: %v; want %s at %s", pod.Name, mounts, r.MountType, target)
		}
		mount = m
		return nil
	})
	t.Logf("the kubelet of %s published %s for pod %s at %s: %s from %s", r.Node, pv.Name, pod.Name, target, mount.FSType, mount.Source)
	return mount
}

// succeededWith waits until the pod has ended and fails the test unless it Succeeded with message
// want.
func succeededWith(t *testing.T, w *framework.World, pod *corev1.Pod, want string) {
	t.Helper()
	ended := waitForPodEnded(t, w, pod.Namespace, pod.Name)
	if status := ended.Status.ContainerStatuses; ended.Status.Phase != corev1.PodSucceeded || len(status) != 1 ||
		status[0].State.Terminated == nil || strings.TrimSpace(status[0].State.Terminated.Message) != strings.TrimSpace(want) {
		t.Fatalf("pod %s ended %s, containers %+v; want Succeeded with %q", pod.Name, ended.Status.Phase, status, want)
	}
}

// waitForUnmounted waits until no mount of the claim's type is left in the node's kubelet directory.
func (r realNodeClaim) waitForUnmounted(t *testing.T, node *framework.RealNode) {
	t.Helper()
	framework.Eventually(t, realNodeTimeout, "the kubelet of "+r.Node+" unmounting the volume", func(context.Context) error {
		mounts, err := node.Mounts("/var/lib/kubelet")
		if err != nil {
			return err
		}
		for point, m := range mounts {
			if m.FSType == r.MountType {
				return fmt.Errorf("%s still mounted at %s", m.FSType, point)
			}
		}
		return nil
	})
}

// waitForPodEvent waits for an event of the pod with reason whose message contains text, and
// returns it.
func waitForPodEvent(t *testing.T, w *framework.World, pod *corev1.Pod, reason, text string) corev1.Event {
	t.Helper()
	var found corev1.Event
	framework.Eventually(t, realNodeTimeout, "pod "+pod.Name+"'s "+reason+" event saying "+text, func(ctx context.Context) error {
		events, err := w.Kube.CoreV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.kind=Pod,involvedObject.name=" + pod.Name + ",involvedObject.uid=" + string(pod.UID)})
		if err != nil {
			return err
		}
		var seen []string
		for _, e := range events.Items {
			if e.Reason == reason && strings.Contains(e.Message, text) {
				found = e
				return nil
			}
			seen = append(seen, e.Reason+": "+e.Message)
		}
		return fmt.Errorf("events %q", seen)
	})
	return found
}

// waitForDriversRegistered waits until the node's kubelet has registered exactly drivers, each with
// the node ID the node's metadata service gives (manila-csi-plugin's NodeGetInfo reads the instance
// ID). The storage's own node plugins (csi-driver-nfs, ceph-csi) have no registrar: manila-csi-plugin
// alone calls them, forwarding through the socket the pods share.
func waitForDriversRegistered(t *testing.T, node *framework.RealNode, drivers ...string) {
	t.Helper()
	want := slices.Sorted(slices.Values(drivers))
	framework.Eventually(t, realNodeTimeout, "the kubelet of "+node.Name+" registering "+strings.Join(want, ", "), func(ctx context.Context) error {
		n, err := world.Kube.StorageV1().CSINodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var got []string
		for _, d := range n.Spec.Drivers {
			if d.NodeID != node.InstanceID {
				return fmt.Errorf("driver %s node ID %q; want the instance ID the node's metadata service gives, %q", d.Name, d.NodeID, node.InstanceID)
			}
			got = append(got, d.Name)
		}
		if slices.Sort(got); !slices.Equal(got, want) {
			return fmt.Errorf("CSINode %s drivers %v; want %v", node.Name, got, want)
		}
		t.Logf("CSINode %s: %v with node ID %s (the instance ID from the node's metadata service)", node.Name, want, node.InstanceID)
		return nil
	})
}

// waitForPodsReady waits until a pod of each DaemonSet runs on the node with every container Ready.
func waitForPodsReady(t *testing.T, w *framework.World, node string, daemonSets ...string) {
	t.Helper()
	framework.Eventually(t, realNodeTimeout, "the node plugins' pods on "+node+" Ready", func(ctx context.Context) error {
		pods, err := w.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		if err != nil {
			return err
		}
		var ready []string // the DaemonSets whose pod here has every container Ready
		for _, p := range pods.Items {
			for _, c := range p.Status.ContainerStatuses {
				if !c.Ready {
					return fmt.Errorf("pod %s: %s, container %s not Ready: %+v", p.Name, p.Status.Phase, c.Name, c.State)
				}
			}
			if len(p.Status.ContainerStatuses) > 0 && len(p.OwnerReferences) > 0 {
				ready = append(ready, p.OwnerReferences[0].Name)
			}
		}
		for _, ds := range daemonSets {
			if !slices.Contains(ready, ds) {
				return fmt.Errorf("no Ready pod of %s on %s (Ready: %v)", ds, node, ready)
			}
		}
		t.Logf("pods Ready on %s: %v", node, ready)
		return nil
	})
}

// readyPodOf waits until the DaemonSet has a pod on the node with every container Ready, other than
// the one with UID not (when set), and returns it.
func readyPodOf(t *testing.T, w *framework.World, node, daemonSet string, not types.UID) *corev1.Pod {
	t.Helper()
	var found *corev1.Pod
	framework.Eventually(t, realNodeTimeout, "a Ready pod of "+daemonSet+" on "+node, func(ctx context.Context) error {
		pods, err := w.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
		if err != nil {
			return err
		}
		var seen []string
		for i, p := range pods.Items {
			if len(p.OwnerReferences) == 0 || p.OwnerReferences[0].Name != daemonSet || p.DeletionTimestamp != nil {
				continue
			}
			ready := len(p.Status.ContainerStatuses) > 0
			for _, c := range p.Status.ContainerStatuses {
				ready = ready && c.Ready
			}
			if ready && p.UID != not {
				found = &pods.Items[i]
				return nil
			}
			seen = append(seen, fmt.Sprintf("%s (%s, ready %t)", p.Name, p.Status.Phase, ready))
		}
		return fmt.Errorf("pods of %s there: %v", daemonSet, seen)
	})
	return found
}

// waitForPodEnded waits until the pod has Succeeded or Failed and returns it.
func waitForPodEnded(t *testing.T, w *framework.World, namespace, name string) *corev1.Pod {
	t.Helper()
	var ended *corev1.Pod
	framework.Eventually(t, realNodeTimeout, "pod "+namespace+"/"+name+" to end", func(ctx context.Context) error {
		p, err := w.Kube.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			return fmt.Errorf("phase %s", p.Status.Phase)
		}
		ended = p
		return nil
	})
	return ended
}

// forgetPodsOnNodes deletes at once the pods of namespace ("": every namespace) bound to nodes no
// kubelet runs (stopped real nodes, Node objects of stand-in nodes), which no kubelet will confirm gone.
func forgetPodsOnNodes(t *testing.T, namespace string, nodes ...string) {
	ctx := context.Background()
	for _, n := range nodes {
		pods, err := world.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n})
		if err != nil {
			t.Errorf("the pods of node %s: %v", n, err)
			continue
		}
		for _, p := range pods.Items {
			if err := world.Kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting pod %s/%s of node %s: %v", p.Namespace, p.Name, n, err)
			}
		}
	}
}
