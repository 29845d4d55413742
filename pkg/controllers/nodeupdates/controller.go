// Package nodeupdates reports the nodes on which a DaemonSet that updates its pods only when they are
// deleted (updateStrategy OnDelete) still runs a pod of an older template.
package nodeupdates

import (
	"context"
	"fmt"
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
)

// Reasons of the Pending condition, and its event.
const (
	ReasonWaitingForPodDeletion = "WaitingForPodDeletion"
	ReasonAsExpected            = "AsExpected"
	EventPending                = "NodeUpdatesPending"
)

// shownNodes is how many nodes a message names before it counts the rest.
const shownNodes = 10

// ConditionPending is the condition a controller of this name writes: True while a node runs an
// older pod. Neither Degraded nor Progressing: the DaemonSet waits for the admin, as it was made to.
func ConditionPending(name string) string { return name + "Pending" }

// Deps are the Controller's collaborators. DaemonSets informs on the DaemonSet's namespace; Pods and
// Revisions on its pods and ControllerRevisions only (by its selector).
type Deps struct {
	// Name names the controller and prefixes its condition.
	Name string
	// Namespace and DaemonSet name the DaemonSet; Consequence says what replacing one of its pods does
	// to the node's workloads, for the message.
	Namespace, DaemonSet, Consequence string
	OperatorClient                    condition.OperatorClient
	DaemonSets                        appsv1informers.DaemonSetInformer
	Revisions                         appsv1informers.ControllerRevisionInformer
	Pods                              corev1informers.PodInformer
	Recorder                          events.Recorder
}

// Controller reports where an OnDelete DaemonSet is not yet updated.
//
// Watches: the DaemonSet, its ControllerRevisions and its pods. Writes: condition <Name>Pending
// (True naming the nodes whose pod runs an older template than the DaemonSet's current revision,
// False when none does), and a NodeUpdatesPending event when it turns True. Policy: it deletes
// nothing and updates no pod: replacing a pod is the admin's call (a drain, a reboot, or deleting
// it). Only while the ClusterCSIDriver is Managed; it runs while the DaemonSet's instance runs, whose
// removal takes its condition.
type Controller struct {
	d Deps
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	return factory.New().WithSync(c.sync).
		WithInformers(d.OperatorClient.Informer(), d.DaemonSets.Informer(), d.Revisions.Informer(), d.Pods.Informer()).
		ToController(d.Name, d.Recorder.WithComponentSuffix("node-updates"))
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	var nodes []string
	ds, err := c.d.DaemonSets.Lister().DaemonSets(c.d.Namespace).Get(c.d.DaemonSet)
	switch {
	case apierrors.IsNotFound(err): // not applied yet: nothing waits
	case err != nil:
		return err
	default:
		revisions, err := c.d.Revisions.Lister().ControllerRevisions(c.d.Namespace).List(labels.Everything())
		if err != nil {
			return err
		}
		pods, err := c.d.Pods.Lister().Pods(c.d.Namespace).List(labels.Everything())
		if err != nil {
			return err
		}
		var known bool
		if nodes, known = Outdated(ds, revisions, pods); !known {
			return nil // the DaemonSet controller's first revision comes with an event
		}
	}
	cond := pending(c.d, nodes)
	changed, err := condition.Update(ctx, c.d.OperatorClient, condition.Set(cond))
	if err == nil && changed && cond.Status == operatorv1.ConditionTrue {
		syncCtx.Recorder().Warning(EventPending, cond.Message)
	}
	return err
}

// pending is the condition for the nodes still on an older pod.
func pending(d Deps, nodes []string) operatorv1.OperatorCondition {
	cond := operatorv1.OperatorCondition{Type: ConditionPending(d.Name), Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	if len(nodes) == 0 {
		return cond
	}
	shown := strings.Join(nodes[:min(len(nodes), shownNodes)], ", ")
	if more := len(nodes) - shownNodes; more > 0 {
		shown += fmt.Sprintf(" and %d more", more)
	}
	cond.Status, cond.Reason = operatorv1.ConditionTrue, ReasonWaitingForPodDeletion
	cond.Message = fmt.Sprintf("DaemonSet %s/%s updates a node's pod only once that pod is deleted (updateStrategy OnDelete): "+
		"%d node(s) still run its previous template: %s. A drain or a reboot of the node updates it, as does deleting the pod; %s.",
		d.Namespace, d.DaemonSet, len(nodes), shown, d.Consequence)
	return cond
}
