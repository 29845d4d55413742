package workloadselector

import (
	"context"
	"errors"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// ControllerName prefixes the condition.
const ControllerName = "WorkloadSelectorController"

// ConditionDegraded is True while a workload with a foreign selector could not be deleted.
const ConditionDegraded = ControllerName + "Degraded"

// ConditionTypes are the condition types the controller writes.
func ConditionTypes() []string { return []string{ConditionDegraded} }

// Reasons of ConditionDegraded.
const (
	ReasonAsExpected   = "AsExpected"
	ReasonDeleteFailed = "DeleteFailed"
)

// Controller clears the way for the operand workloads when an object of the same name selects other
// pods (an older install's, or an admin's): library-go's workload controllers update in place, and an
// update cannot change spec.selector, so without this the operand would never be applied. OpenShift's
// own Manila operator uses the operator's selectors, so taking over from it never comes here.
//
// Watches: the operand namespace's Deployments and DaemonSets (by name), and the ClusterCSIDriver.
// Writes: while Managed, deletes a workload named like an operand workload whose spec.selector is not
// the rendered one (with UID and resourceVersion preconditions, so only the object it saw), with a
// warning event naming the workload and both selectors; the workload controllers then create the
// operator's. A DaemonSet runs a node plugin on every node, so its pods are never deleted with it:
// they are first labelled OrphanLabel, the DaemonSet is deleted with propagationPolicy Orphan, and
// the orphans get the rendered selector's labels, so the operator's DaemonSet adopts them and its
// rolling update replaces them node by node. Condition WorkloadSelectorControllerDegraded names a
// workload it failed to delete or a pod it failed to label.
// Policy: it deletes nothing else (no pod ever), and nothing while Unmanaged or Removed, checked
// again before each delete and each pod's relabelling.
type Controller struct{ d Deps }

// Deps are the Controller's collaborators; the informers must be scoped to the operand namespace.
type Deps struct {
	OperatorClient condition.OperatorClient
	Deployments    appsv1informers.DeploymentInformer
	DaemonSets     appsv1informers.DaemonSetInformer
	Client         appsv1client.AppsV1Interface
	// DeploymentNamespace and Deployments' client, hosted only: the controller Deployment's namespace of
	// the management cluster and its client there (Deployments must be an informer of that namespace).
	// Standalone (empty, nil) it is the operand namespace, through Client.
	DeploymentNamespace string
	DeploymentClient    appsv1client.DeploymentsGetter
	// Pods lists and labels the operand namespace's pods (live: only while a DaemonSet is replaced).
	Pods      corev1client.PodsGetter
	Recorder  events.Recorder
	Workloads []Workload
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	if d.DeploymentNamespace == "" {
		d.DeploymentNamespace = names.OperandNamespace
	}
	if d.DeploymentClient == nil {
		d.DeploymentClient = d.Client
	}
	c := &Controller{d: d}
	var workloadNames []string
	for _, w := range d.Workloads {
		workloadNames = append(workloadNames, w.Name)
	}
	return factory.New().
		WithSync(c.sync).
		WithFilteredEventsInformers(factory.NamesFilter(workloadNames...), d.Deployments.Informer(), d.DaemonSets.Informer()).
		WithInformers(d.OperatorClient.Informer()).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("workload-selector"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	var errs []error
	for _, w := range c.d.Workloads {
		if err := c.reconcile(ctx, syncCtx.Recorder(), w); err != nil {
			errs = append(errs, err)
		}
	}
	failed := errors.Join(errs...)
	if errors.Is(failed, managementstate.ErrNotManaged) {
		return nil // no longer Managed: nothing more is written, conditions included
	}
	cond := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	if failed != nil {
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: ReasonDeleteFailed, Message: failed.Error()}
	}
	if _, uerr := condition.Update(ctx, c.d.OperatorClient, condition.Set(cond)); uerr != nil {
		errs = append(errs, uerr)
	}
	return errors.Join(errs...)
}

func (c *Controller) reconcile(ctx context.Context, recorder events.Recorder, w Workload) error {
	switch w.Kind {
	case Deployment:
		ns := c.d.DeploymentNamespace
		d, err := c.d.Deployments.Lister().Deployments(ns).Get(w.Name)
		if apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		if d.DeletionTimestamp != nil || !Differs(d.Spec.Selector, w.Selector) {
			return nil
		}
		// Its ReplicaSet's pods go with it: the controller plugin serves no mounted volume.
		err = c.delete(ctx, c.d.DeploymentClient.Deployments(ns).Delete, d.ObjectMeta, metav1.DeletePropagationBackground)
		if err == nil {
			recorder.Warningf("WorkloadRecreated", "Deleted %s %s/%s so that the operator can create it: its spec.selector %s cannot be changed in place to %s",
				w.Kind, ns, w.Name, Describe(d.Spec.Selector), Describe(w.Selector))
		}
		return describeErr(w, ns, err)
	case DaemonSet:
		d, err := c.d.DaemonSets.Lister().DaemonSets(names.OperandNamespace).Get(w.Name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		if err == nil && d.DeletionTimestamp == nil && Differs(d.Spec.Selector, w.Selector) {
			pods, err := c.markPods(ctx, d)
			if err != nil {
				return fmt.Errorf("%s %s/%s: marking its pods before it is replaced: %w", w.Kind, names.OperandNamespace, w.Name, err)
			}
			err = c.delete(ctx, c.d.Client.DaemonSets(names.OperandNamespace).Delete, d.ObjectMeta, metav1.DeletePropagationOrphan)
			if err != nil {
				return describeErr(w, names.OperandNamespace, err)
			}
			recorder.Warningf("WorkloadRecreated", "Deleted %s %s/%s so that the operator can create it: its spec.selector %s cannot be changed in place to %s. "+
				"Its %d pods were orphaned, not deleted: they keep running, get the new selector's labels, and the new DaemonSet's rolling update replaces them node by node",
				w.Kind, names.OperandNamespace, w.Name, Describe(d.Spec.Selector), Describe(w.Selector), pods)
			return nil
		}
		if err := c.relabelOrphans(ctx, w); err != nil {
			return fmt.Errorf("%s %s/%s: handing its orphaned pods to the new DaemonSet: %w", w.Kind, names.OperandNamespace, w.Name, err)
		}
		return nil
	default:
		return fmt.Errorf("workload %s: unknown kind %q", w.Name, w.Kind)
	}
}

// delete removes the very object the cache saw (same UID, unchanged since).
func (c *Controller) delete(ctx context.Context, remove func(context.Context, string, metav1.DeleteOptions) error, seen metav1.ObjectMeta, propagation metav1.DeletionPropagation) error {
	if err := managementstate.StillManaged(c.d.OperatorClient); err != nil {
		return err // set Unmanaged or Removed since the sync began: the admin's now
	}
	uid, rv := seen.UID, seen.ResourceVersion
	err := remove(ctx, seen.Name, metav1.DeleteOptions{PropagationPolicy: &propagation,
		Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return errSkipped // gone, or changed since the cache saw it: the next event brings the new state
	}
	return err
}

// errSkipped is a delete that did not happen and needs no retry.
var errSkipped = errors.New("skipped")

func describeErr(w Workload, namespace string, err error) error {
	switch {
	case err == nil, errors.Is(err, errSkipped):
		return nil
	default:
		return fmt.Errorf("deleting %s %s/%s, whose spec.selector is not the operator's: %w", w.Kind, namespace, w.Name, err)
	}
}
