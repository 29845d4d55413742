package nodeupdates

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Outdated returns the nodes (sorted) whose pod of ds runs an older template than ds's current one:
// those a DaemonSet with updateStrategy OnDelete updates only once the pod is deleted. The current
// template is ds's ControllerRevision of the highest revision (the DaemonSet controller bumps a
// reused one), and a pod runs it when its controller-revision-hash label is that revision's, as the
// DaemonSet controller itself decides. known is false while ds has no revision yet. Pods being
// deleted and pods not yet bound to a node do not count.
func Outdated(ds *appsv1.DaemonSet, revisions []*appsv1.ControllerRevision, pods []*corev1.Pod) (nodes []string, known bool) {
	var current *appsv1.ControllerRevision
	for _, r := range revisions {
		if metav1.IsControlledBy(r, ds) && (current == nil || r.Revision > current.Revision) {
			current = r
		}
	}
	hash, ok := "", false
	if current != nil {
		hash, ok = current.Labels[appsv1.ControllerRevisionHashLabelKey]
	}
	if !ok {
		return nil, false
	}
	for _, p := range pods {
		if !metav1.IsControlledBy(p, ds) || p.DeletionTimestamp != nil || p.Spec.NodeName == "" {
			continue
		}
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] != hash {
			nodes = append(nodes, p.Spec.NodeName)
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes), true
}
