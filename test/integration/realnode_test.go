package integration

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// realNodeTimeout bounds a real node's start (containerd, the images' import, the kubelet's first
// status) and a pod's run on it, on a loaded 2-core machine.
const realNodeTimeout = 3 * time.Minute

// podNetwork holds the addresses hack/node/podnet gives pods, each inside the pod's own namespace.
var podNetwork = &net.IPNet{IP: net.IPv4(10, 88, 0, 0), Mask: net.CIDRMask(16, 32)}

// A real node: the kubelet v1.36.2 with Debian's containerd and runc registers with the world's API
// server under its node identity and reports Ready with its loopback address as InternalIP; a pod
// bound to it (not host-network: an address of the world's pod network) runs in a real container from
// an image made on this machine, writes to an emptyDir and
// reads it back (its termination message and its log, read through the API server, carry what it
// read); nothing of the node shows in the machine's mount table, and once stopped none of its
// processes is left.
func TestRealNodeRunsAPod(t *testing.T) {
	ctx := context.Background()
	const address = "127.0.0.2"
	t.Cleanup(func() { forgetRealNode(t, address) }) // after the node's own cleanup
	node := world.StartRealNode(t, address, nil)

	framework.Eventually(t, realNodeTimeout, "node "+address+" Ready", func(ctx context.Context) error {
		n, err := world.Kube.CoreV1().Nodes().Get(ctx, address, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				if len(n.Status.Addresses) == 0 || n.Status.Addresses[0] != (corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: address}) {
					return fmt.Errorf("Ready, with addresses %v", n.Status.Addresses)
				}
				return nil
			}
		}
		return fmt.Errorf("conditions %v", n.Status.Conditions)
	})

	const said = "written to an emptyDir on a real node and read back"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "real-node-hello", Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeName: address, RestartPolicy: corev1.RestartPolicyNever,
			AutomountServiceAccountToken: new(bool),
			Volumes:                      []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Containers: []corev1.Container{{
				Name: "hello", Image: framework.BusyboxImage,
				Command:      []string{"sh", "-c", "echo '" + said + "' > /data/f && cat /data/f > /dev/termination-log && cat /data/f"},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
			}},
		},
	}
	if _, err := world.Kube.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deletePodAndWait(t, pod.Namespace, pod.Name) })
	ended := waitForPodEnded(t, world, pod.Namespace, pod.Name)
	if len(ended.Status.ContainerStatuses) != 1 || ended.Status.ContainerStatuses[0].State.Terminated == nil {
		t.Fatalf("pod %s ended %s with containers %+v", pod.Name, ended.Status.Phase, ended.Status.ContainerStatuses)
	}
	status := ended.Status.ContainerStatuses[0]
	if term := status.State.Terminated; ended.Status.Phase != corev1.PodSucceeded || term.ExitCode != 0 || strings.TrimSpace(term.Message) != said {
		t.Fatalf("pod %s ended %s, its container %+v; want Succeeded, exit 0, the message %q", pod.Name, ended.Status.Phase, term, said)
	}
	// Not host-network: its own network namespace, with an address of the world's pod network.
	if ip := net.ParseIP(ended.Status.PodIP); ip == nil || !podNetwork.Contains(ip) {
		t.Errorf("pod %s has IP %q; want one of the pod network %s (hack/node/podnet)", pod.Name, ended.Status.PodIP, podNetwork)
	}
	t.Logf("pod %s ran in %s on node %s (pod IP %s): %q", pod.Name, status.ContainerID, address, ended.Status.PodIP, said)
	// Its log through the API server, which asks the kubelet (its kubelet client identity, which the
	// kubelet authorizes through the API server).
	logs, err := world.Kube.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil || strings.TrimSpace(string(logs)) != said {
		t.Fatalf("pod %s's log through the API server: %q, %v; want %q", pod.Name, logs, err, said)
	}
	if leaked := mountsUnder(t, node.Dir, "/var/lib/kubelet"); len(leaked) > 0 {
		t.Errorf("the node's mounts show in the machine's mount table: %v", leaked)
	}
	deletePodAndWait(t, pod.Namespace, pod.Name) // while its kubelet runs
	if running := node.Processes(); len(running) < 2 {
		t.Errorf("the node's running processes: %v; want containerd and the kubelet at least", running)
	}
	node.Stop()
	if left := node.Processes(); len(left) > 0 {
		t.Errorf("processes of the node left after it stopped: %v", left)
	}
}

// deletePodAndWait deletes the pod and waits until it is gone (a bound pod goes once its kubelet
// confirms its containers stopped).
func deletePodAndWait(t *testing.T, namespace, name string) {
	ctx := context.Background()
	if err := world.Kube.CoreV1().Pods(namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting pod %s/%s: %v", namespace, name, err)
		return
	}
	framework.Eventually(t, realNodeTimeout, "pod "+namespace+"/"+name+" gone", func(ctx context.Context) error {
		_, err := world.Kube.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}

// mountsUnder lists this machine's mount points under any of the paths.
func mountsUnder(t *testing.T, paths ...string) []string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 5 {
			continue
		}
		for _, p := range paths {
			if fields[4] == p || strings.HasPrefix(fields[4], p+"/") {
				out = append(out, fields[4])
			}
		}
	}
	return out
}

// forgetRealNode removes what a stopped real node leaves in the API: its pods (no kubelet will confirm
// their deletion), its CSINode and its Node (no garbage collector runs here).
func forgetRealNode(t *testing.T, address string) {
	ctx := context.Background()
	forgetPodsOnNodes(t, "", address)
	if err := world.Kube.StorageV1().CSINodes().Delete(ctx, address, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting CSINode %s: %v", address, err)
	}
	if err := world.Kube.CoreV1().Nodes().Delete(ctx, address, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting node %s: %v", address, err)
	}
}
