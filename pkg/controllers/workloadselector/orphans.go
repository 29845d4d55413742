package workloadselector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// OrphanLabel marks the pods of a DaemonSet that is deleted with propagationPolicy Orphan; its value
// is the DaemonSet's name. It is written before the delete, so a restarted operator still finds the
// pods once the DaemonSet, and the selector that found them, are gone.
const OrphanLabel = "manila.csi.openstack.org/orphan-of"

// markPods labels every pod the DaemonSet controls with OrphanLabel. Adding a label keeps the pods
// selected by the DaemonSet, so nothing is replaced before the delete.
func (c *Controller) markPods(ctx context.Context, ds *appsv1.DaemonSet) (int, error) {
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return 0, fmt.Errorf("DaemonSet %s/%s: spec.selector: %w", names.OperandNamespace, ds.Name, err)
	}
	pods, err := c.d.Pods.Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return 0, err
	}
	marked := 0
	var errs []error
	for i := range pods.Items {
		pod := &pods.Items[i]
		if ref := metav1.GetControllerOf(pod); ref == nil || ref.UID != ds.UID {
			continue // not this DaemonSet's pod: someone else's, with the same labels
		}
		marked++
		if pod.Labels[OrphanLabel] == ds.Name {
			continue
		}
		errs = append(errs, c.patchLabels(ctx, pod, map[string]string{OrphanLabel: ds.Name}))
	}
	return marked, errors.Join(errs...)
}

// relabelOrphans gives the pods marked for workload w the labels of w's rendered selector, so that the
// operator's DaemonSet adopts them and its rolling update replaces them one node at a time (its
// maxUnavailable), instead of every node losing its plugin at once. It runs only while no DaemonSet
// with another selector holds the name: a pod relabelled under its old owner would be replaced by it.
func (c *Controller) relabelOrphans(ctx context.Context, w Workload) error {
	ds, err := c.d.DaemonSets.Lister().DaemonSets(names.OperandNamespace).Get(w.Name)
	switch {
	case err == nil && ds.DeletionTimestamp == nil && Differs(ds.Spec.Selector, w.Selector):
		return nil
	case err != nil && !apierrors.IsNotFound(err):
		return err
	}
	pods, err := c.d.Pods.Pods(names.OperandNamespace).List(ctx, metav1.ListOptions{
		LabelSelector: labels.SelectorFromSet(labels.Set{OrphanLabel: w.Name}).String()})
	if err != nil {
		return err
	}
	var errs []error
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.DeletionTimestamp != nil || labels.SelectorFromSet(w.Selector.MatchLabels).Matches(labels.Set(pod.Labels)) {
			continue
		}
		errs = append(errs, c.patchLabels(ctx, pod, w.Selector.MatchLabels))
	}
	return errors.Join(errs...)
}

// patchLabels adds labels to the pod (a merge patch: its other labels stay).
func (c *Controller) patchLabels(ctx context.Context, pod *corev1.Pod, set map[string]string) error {
	if err := managementstate.StillManaged(c.d.OperatorClient); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": set}})
	if err != nil {
		return err
	}
	_, err = c.d.Pods.Pods(names.OperandNamespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		return nil // gone already
	} else if err != nil {
		return fmt.Errorf("labelling pod %s/%s: %w", names.OperandNamespace, pod.Name, err)
	}
	return nil
}
