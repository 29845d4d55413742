package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// nfsRealNode is the real node of TestE2ENFSMounted's world.
const nfsRealNode = "127.0.0.4"

// claimInAPodOnARealNode: the claim, bound and already published on a stand-in node, is mounted by a
// real kubelet into a pod. The operator's node DaemonSets run on the real node as rendered (the
// DaemonSet controller and kube-scheduler place them), the kubelet stages and publishes through
// manila-csi-plugin, which reaches Keystone and Manila and forwards to csi-driver-nfs, whose
// `mount -t nfs` runs the NFS client inside its own image (util-linux's mount, the FUSE helper); the
// mount reaches the pod through the Bidirectional mount of the kubelet's pods directory. The pod reads
// what the other node wrote and writes a file that node and Ceph read; once the pod has ended the
// kubelet unpublishes and no mount of the volume is left on the node.
func claimInAPodOnARealNode(t *testing.T, w *framework.World, ceph *framework.Ceph, ganesha *framework.Ganesha,
	claim *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, exportPath, otherTarget string) {
	ctx := context.Background()
	t.Cleanup(func() { forgetRealNode(t, nfsRealNode) }) // after the node and the controllers stop
	t.Cleanup(func() { forgetDaemonSetPodsOnNodes(t, "e2e-nfs-a", "e2e-nfs-b") })
	w.StartKubeControllers(t, "daemonset-controller", "root-ca-certificate-publisher-controller", "serviceaccount-controller")
	w.StartScheduler(t)
	node := w.StartRealNode(t, nfsRealNode, framework.OperandNodeImages())
	// What the node plugins dial: Keystone and Manila (manila-csi-plugin), the NFS and MOUNT ports
	// (the NFS client).
	for _, port := range []int{w.OpenStack.KeystonePort, w.OpenStack.ManilaPort, ganesha.NFSPort, ganesha.MountPort} {
		node.Relay(t, port)
	}
	waitForManilaRegistered(t, node)

	written := readFile(t, filepath.Join(otherTarget, "hello.txt"))
	const said = "written by a pod on a real node\n"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "real-node-reader", Namespace: nfsMountedNamespace},
		Spec: corev1.PodSpec{
			NodeName: nfsRealNode, HostNetwork: true, RestartPolicy: corev1.RestartPolicyNever,
			AutomountServiceAccountToken: new(bool),
			Volumes: []corev1.Volume{{Name: "shared", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim.Name}}}},
			// It writes, then waits for the test's word through the other node before it reads, so
			// the test sees the mount while the pod runs.
			Containers: []corev1.Container{{
				Name: "reader", Image: framework.BusyboxImage,
				Command: []string{"sh", "-c", "printf '" + strings.TrimSuffix(said, "\n") + "\\n' > /shared/from-real-node.txt && " +
					"while [ ! -e /shared/done ]; do sleep 1; done && cat /shared/hello.txt > /dev/termination-log"},
				VolumeMounts: []corev1.VolumeMount{{Name: "shared", MountPath: "/shared"}},
			}},
		},
	}
	if _, err := w.Kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePodAndWait(t, pod.Namespace, pod.Name) })

	// The pod's write shows on the other node and in Ceph: the mount is the share's.
	readBackOn(t, filepath.Join(otherTarget, "from-real-node.txt"), said)
	if got, err := ceph.ReadFile(filepath.Join(exportPath, "from-real-node.txt")); err != nil || got != said {
		t.Fatalf("read through Ceph %q, %v; want %q", got, err, said)
	}
	running, err := w.Kube.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The kubelet's publish target for the pod: a fuse-nfs mount of the share's export, in the node's
	// mount table (the NFS plugin's mount reached it through Bidirectional propagation).
	target := fmt.Sprintf("/var/lib/kubelet/pods/%s/volumes/kubernetes.io~csi/%s/mount", running.UID, pv.Name)
	mounts, err := node.Mounts("/var/lib/kubelet/pods/" + string(running.UID))
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := mounts[target]; !ok || m.FSType != "fuse.fuse-nfs" || !strings.HasPrefix(m.Source, "nfs://127.0.0.1"+exportPath+"?") {
		t.Fatalf("the node's mounts of pod %s: %v; want a fuse.fuse-nfs mount of nfs://127.0.0.1%s at %s", pod.Name, mounts, exportPath, target)
	}
	t.Logf("the kubelet of %s published claim %s for pod %s at %s: %s from %s", nfsRealNode, claim.Name, pod.Name, target, mounts[target].FSType, mounts[target].Source)

	writeFile(t, filepath.Join(otherTarget, "done"), "")
	ended := waitForPodEnded(t, w, pod.Namespace, pod.Name)
	if status := ended.Status.ContainerStatuses; ended.Status.Phase != corev1.PodSucceeded || len(status) != 1 ||
		status[0].State.Terminated == nil || strings.TrimSpace(status[0].State.Terminated.Message) != strings.TrimSpace(written) {
		t.Fatalf("pod %s ended %s, containers %+v; want Succeeded with what the other node wrote, %q", pod.Name, ended.Status.Phase, status, written)
	}
	t.Logf("pod %s read what e2e-nfs-a wrote: %q", pod.Name, written)
	// An ended pod's volumes are torn down: NodeUnpublish reaches csi-driver-nfs, which unmounts.
	framework.Eventually(t, realNodeTimeout, "the kubelet of "+nfsRealNode+" unpublishing "+target, func(context.Context) error {
		mounts, err := node.Mounts("/var/lib/kubelet/pods/" + string(running.UID))
		if err != nil {
			return err
		}
		if len(mounts) > 0 {
			return fmt.Errorf("still mounted: %v", mounts)
		}
		return nil
	})
	deletePodAndWait(t, pod.Namespace, pod.Name)
	if out, err := fsOp("rm", filepath.Join(otherTarget, "done")); err != nil {
		t.Fatalf("removing the pod's word: %v: %s", err, out)
	}
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

// forgetDaemonSetPodsOnNodes deletes the operand's pods bound to nodes no kubelet runs (Node objects a
// test made for its stand-in nodes, on which the DaemonSet controller places pods that never start).
func forgetDaemonSetPodsOnNodes(t *testing.T, nodes ...string) {
	ctx := context.Background()
	for _, n := range nodes {
		pods, err := world.Kube.CoreV1().Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + n})
		if err != nil {
			t.Errorf("the pods of node %s: %v", n, err)
			continue
		}
		for _, p := range pods.Items {
			if err := world.Kube.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting pod %s/%s: %v", p.Namespace, p.Name, err)
			}
		}
	}
}
