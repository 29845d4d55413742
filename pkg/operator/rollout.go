package operator

import (
	"context"
	"os"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// replacedByRollout is whether this process's pod (POD_NAME) is stopped by a rollout of its
// Deployment to another pod template: its ReplicaSet was scaled to zero. That is how cluster-storage-
// operator swaps one Manila operator's image for another's; a pod deleted, evicted or drained is
// replaced by its own ReplicaSet, which still wants it, and a process outside a pod has none. Only a
// rollout may bring a predecessor that is not leading yet.
func replacedByRollout(ctx context.Context, kube kubernetes.Interface, namespace string) bool {
	podName := os.Getenv("POD_NAME")
	if podName == "" {
		return false
	}
	pod, err := kube.CoreV1().Pods(namespace).Get(ctx, podName, metav1.GetOptions{})
	if err != nil {
		klog.Warningf("Reading this operator's pod %s/%s, to know whether a rollout replaces it: %v", namespace, podName, err)
		return false
	}
	owner := metav1.GetControllerOf(pod)
	if owner == nil || owner.Kind != "ReplicaSet" {
		return false
	}
	rs, err := kube.AppsV1().ReplicaSets(namespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		// Deleted with its Deployment: nothing of this operator follows.
		klog.Warningf("Reading this operator's ReplicaSet %s/%s, to know whether a rollout replaces it: %v", namespace, owner.Name, err)
		return false
	}
	return rs.Spec.Replicas != nil && *rs.Spec.Replicas == 0
}
