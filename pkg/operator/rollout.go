package operator

import (
	"context"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// ownPod is this process's pod (POD_NAME), or nil outside a pod or when it cannot be read.
func ownPod(ctx context.Context, kube kubernetes.Interface, namespace string) *corev1.Pod {
	podName := os.Getenv("POD_NAME")
	if podName == "" {
		return nil
	}
	pod, err := kube.CoreV1().Pods(namespace).Get(ctx, podName, metav1.GetOptions{})
	if err != nil {
		klog.Warningf("Reading this operator's pod %s/%s, to know what stops it: %v", namespace, podName, err)
		return nil
	}
	return pod
}

// exitMargin is what a stopping process keeps of its pod's grace for its last writes (exitWriteTimeout)
// and for clocks that disagree a little.
const exitMargin = exitWriteTimeout + 2*time.Second

// handOverDeadline is when a stopping process gives up waiting to hand over: wait after now, and no
// later than exitMargin before the kubelet kills its pod (the deletion timestamp is the end of the
// grace period its deletion gave).
func handOverDeadline(pod *corev1.Pod, now time.Time, wait time.Duration) time.Time {
	deadline := now.Add(wait)
	if pod != nil && pod.DeletionTimestamp != nil {
		if killed := pod.DeletionTimestamp.Add(-exitMargin); killed.Before(deadline) {
			deadline = killed
		}
	}
	return deadline
}

// replacedByRollout is whether this process's pod is stopped by a rollout of its Deployment to
// another pod template: its ReplicaSet was scaled to zero. That is how cluster-storage-operator swaps
// one Manila operator's image for another's; a pod deleted, evicted or drained is replaced by its own
// ReplicaSet, which still wants it, and a process outside a pod (nil) has none. Only a rollout may
// bring a predecessor that is not leading yet, and only one to another image: a rollout that keeps
// this pod's images (a changed argument, variable or annotation) brings this operator again.
func replacedByRollout(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) bool {
	if pod == nil {
		return false
	}
	namespace := pod.Namespace
	rsName, ok := controllerOfKind(pod, "ReplicaSet")
	if !ok {
		return false
	}
	rs, err := kube.AppsV1().ReplicaSets(namespace).Get(ctx, rsName, metav1.GetOptions{})
	if err != nil {
		// Deleted with its Deployment: nothing of this operator follows.
		klog.Warningf("Reading this operator's ReplicaSet %s/%s, to know whether a rollout replaces it: %v", namespace, rsName, err)
		return false
	}
	if rs.Spec.Replicas == nil || *rs.Spec.Replicas != 0 {
		return false
	}
	deploymentName, ok := controllerOfKind(rs, "Deployment")
	if !ok {
		return true
	}
	deployment, err := kube.AppsV1().Deployments(namespace).Get(ctx, deploymentName, metav1.GetOptions{})
	if err != nil {
		// Not knowing what follows, wait for a predecessor as for any rollout.
		klog.Warningf("Reading this operator's Deployment %s/%s, to know what its rollout brings: %v", namespace, deploymentName, err)
		return true
	}
	if sameImages(pod.Spec.Containers, deployment.Spec.Template.Spec.Containers) {
		klog.Infof("A rollout of Deployment %s/%s keeps this pod's images: this operator follows itself, nothing to hand over", namespace, deploymentName)
		return false
	}
	return true
}

// controllerOfKind is the name of obj's controller when it is of kind.
func controllerOfKind(obj metav1.Object, kind string) (string, bool) {
	owner := metav1.GetControllerOf(obj)
	if owner == nil || owner.Kind != kind {
		return "", false
	}
	return owner.Name, true
}

// sameImages is whether every container of running has a namesake in next with the same image.
func sameImages(running, next []corev1.Container) bool {
	images := make(map[string]string, len(next))
	for _, c := range next {
		images[c.Name] = c.Image
	}
	for _, c := range running {
		if image, ok := images[c.Name]; !ok || image != c.Image {
			return false
		}
	}
	return len(running) > 0
}
