package workloadselector

import (
	"context"
	"errors"
	"fmt"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guard"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// ControllerName prefixes the condition.
const ControllerName = "WorkloadSelectorController"

// ConditionDegraded is True while a workload with a foreign selector could not be deleted.
const ConditionDegraded = ControllerName + "Degraded"

// Reasons of ConditionDegraded.
const (
	ReasonAsExpected   = "AsExpected"
	ReasonDeleteFailed = "DeleteFailed"
)

// Controller clears the way for the operand workloads when an object of the same name selects other
// pods (an older install's, or an admin's): library-go's workload controllers update in place, and an
// update cannot change spec.selector, so without this the operand would never be applied.
//
// Watches: the operand namespace's Deployments and DaemonSets, and the ClusterCSIDriver.
// Writes: while Managed, deletes a workload named like an operand workload whose spec.selector is not
// the rendered one (with UID and resourceVersion preconditions, so only the object it saw), with a
// warning event naming the workload and both selectors; the workload controllers then create the
// operator's. Condition WorkloadSelectorControllerDegraded names a workload it failed to delete.
// Policy: it deletes nothing else, and nothing while Unmanaged or Removed.
type Controller struct{ d Deps }

// Deps are the Controller's collaborators; the informers must be scoped to the operand namespace.
type Deps struct {
	OperatorClient v1helpers.OperatorClient
	Deployments    appsv1informers.DeploymentInformer
	DaemonSets     appsv1informers.DaemonSetInformer
	Client         appsv1client.AppsV1Interface
	Recorder       events.Recorder
	Workloads      []Workload
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	var workloadNames []string
	for _, w := range d.Workloads {
		workloadNames = append(workloadNames, w.Name)
	}
	return factory.New().
		WithSync(guard.Sync(ControllerName, d.OperatorClient, c.sync)).
		WithFilteredEventsInformers(factory.NamesFilter(workloadNames...), d.Deployments.Informer(), d.DaemonSets.Informer()).
		WithInformers(d.OperatorClient.Informer()).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("workload-selector"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := guard.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	var errs []error
	for _, w := range c.d.Workloads {
		if err := c.reconcile(ctx, syncCtx.Recorder(), w); err != nil {
			errs = append(errs, err)
		}
	}
	cond := operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	if err := errors.Join(errs...); err != nil {
		cond = operatorv1.OperatorCondition{Type: ConditionDegraded, Status: operatorv1.ConditionTrue, Reason: ReasonDeleteFailed, Message: err.Error()}
	}
	if _, _, uerr := v1helpers.UpdateStatus(ctx, c.d.OperatorClient, v1helpers.UpdateConditionFn(cond)); uerr != nil {
		errs = append(errs, uerr)
	}
	return errors.Join(errs...)
}

func (c *Controller) reconcile(ctx context.Context, recorder events.Recorder, w Workload) error {
	var existing *metav1.LabelSelector
	var meta metav1.ObjectMeta
	var remove func(context.Context, string, metav1.DeleteOptions) error
	switch w.Kind {
	case Deployment:
		d, err := c.d.Deployments.Lister().Deployments(names.OperandNamespace).Get(w.Name)
		if apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		existing, meta, remove = d.Spec.Selector, d.ObjectMeta, c.d.Client.Deployments(names.OperandNamespace).Delete
	case DaemonSet:
		d, err := c.d.DaemonSets.Lister().DaemonSets(names.OperandNamespace).Get(w.Name)
		if apierrors.IsNotFound(err) {
			return nil
		} else if err != nil {
			return err
		}
		existing, meta, remove = d.Spec.Selector, d.ObjectMeta, c.d.Client.DaemonSets(names.OperandNamespace).Delete
	default:
		return fmt.Errorf("workload %s: unknown kind %q", w.Name, w.Kind)
	}
	if meta.DeletionTimestamp != nil || !Differs(existing, w.Selector) {
		return nil
	}
	uid, rv := meta.UID, meta.ResourceVersion
	err := remove(ctx, w.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &rv}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or changed since the cache saw it: the next event brings the new state
	} else if err != nil {
		return fmt.Errorf("deleting %s %s/%s, whose spec.selector is not the operator's: %w", w.Kind, names.OperandNamespace, w.Name, err)
	}
	recorder.Warningf("WorkloadRecreated", "Deleted %s %s/%s so that the operator can create it: its spec.selector %s cannot be changed in place to %s",
		w.Kind, names.OperandNamespace, w.Name, Describe(existing), Describe(w.Selector))
	return nil
}
