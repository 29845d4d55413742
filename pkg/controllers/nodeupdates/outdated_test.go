package nodeupdates

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func TestOutdated(t *testing.T) {
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "csi-nodeplugin-cephfsplugin", UID: "ds"}}
	other := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "other", UID: "other"}}
	rev := func(owner *appsv1.DaemonSet, revision int64, hash string) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{
			Labels:          map[string]string{appsv1.ControllerRevisionHashLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{controllerRef(owner)},
		}, Revision: revision}
	}
	pod := func(owner *appsv1.DaemonSet, node, hash string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Labels:          map[string]string{appsv1.ControllerRevisionHashLabelKey: hash},
			OwnerReferences: []metav1.OwnerReference{controllerRef(owner)},
		}, Spec: corev1.PodSpec{NodeName: node}}
	}
	deleting := pod(ds, "node-d", "old")
	deleting.DeletionTimestamp = &metav1.Time{}
	for _, tc := range []struct {
		name      string
		revisions []*appsv1.ControllerRevision
		pods      []*corev1.Pod
		want      []string
		known     bool
	}{
		{name: "no revision yet", pods: []*corev1.Pod{pod(ds, "node-a", "old")}},
		{name: "every pod current", revisions: []*appsv1.ControllerRevision{rev(ds, 1, "old"), rev(ds, 2, "new")},
			pods: []*corev1.Pod{pod(ds, "node-a", "new"), pod(ds, "node-b", "new")}, known: true},
		{name: "the highest revision is current, whatever the order",
			revisions: []*appsv1.ControllerRevision{rev(ds, 3, "new"), rev(ds, 2, "old")},
			pods:      []*corev1.Pod{pod(ds, "node-b", "old"), pod(ds, "node-a", "new"), pod(ds, "node-c", "old")},
			want:      []string{"node-b", "node-c"}, known: true},
		{name: "a template put back: its old revision is bumped",
			revisions: []*appsv1.ControllerRevision{rev(ds, 4, "old"), rev(ds, 3, "new")},
			pods:      []*corev1.Pod{pod(ds, "node-a", "new"), pod(ds, "node-b", "old")},
			want:      []string{"node-a"}, known: true},
		{name: "another DaemonSet's revisions and pods do not count",
			revisions: []*appsv1.ControllerRevision{rev(ds, 1, "new"), rev(other, 9, "x")},
			pods:      []*corev1.Pod{pod(other, "node-a", "x"), pod(ds, "node-b", "new")}, known: true},
		{name: "pods being deleted or not yet bound do not count",
			revisions: []*appsv1.ControllerRevision{rev(ds, 2, "new")},
			pods:      []*corev1.Pod{deleting, pod(ds, "", "old")}, known: true},
		{name: "a revision without its hash label is not known",
			revisions: []*appsv1.ControllerRevision{{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{controllerRef(ds)}}, Revision: 1}},
			pods:      []*corev1.Pod{pod(ds, "node-a", "old")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, known := Outdated(ds, tc.revisions, tc.pods)
			if !slices.Equal(got, tc.want) || known != tc.known {
				t.Errorf("Outdated = %v, %v; want %v, %v", got, known, tc.want, tc.known)
			}
		})
	}
}

func controllerRef(ds *appsv1.DaemonSet) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: types.UID(ds.UID), Controller: &yes}
}
