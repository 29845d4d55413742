// Package hooks holds Deployment and DaemonSet hooks, each returned with the informers it reads so
// callers wire both together.
package hooks

import (
	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
)

var controlPlaneLabels = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"}

// ControlPlaneReplicas sets the Deployment's replicas to the number of control-plane nodes, at least 1
// (a cluster whose nodes are not labelled yet still gets a controller).
func ControlPlaneReplicas(nodes corev1informers.NodeInformer) (dc.DeploymentHookFunc, []factory.Informer) {
	hook := func(_ *opv1.OperatorSpec, deployment *appsv1.Deployment) error {
		all, err := nodes.Lister().List(labels.Everything())
		if err != nil {
			return err
		}
		replicas := int32(CountControlPlane(all))
		if replicas < 1 {
			replicas = 1
		}
		deployment.Spec.Replicas = &replicas
		return nil
	}
	return hook, []factory.Informer{controlPlaneEvents{nodes.Informer()}}
}

// controlPlaneEvents passes on the events of control-plane nodes only (a node gaining or losing the
// label included): the status updates of a cluster's workers never re-run the Deployment's sync.
type controlPlaneEvents struct{ informer cache.SharedIndexInformer }

func (c controlPlaneEvents) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return c.informer.AddEventHandler(cache.FilteringResourceEventHandler{FilterFunc: isControlPlane, Handler: h})
}

func (c controlPlaneEvents) HasSynced() bool { return c.informer.HasSynced() }

func isControlPlane(obj any) bool {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	node, ok := obj.(*corev1.Node)
	return ok && CountControlPlane([]*corev1.Node{node}) == 1
}

// CountControlPlane counts nodes labelled control-plane or master.
func CountControlPlane(nodes []*corev1.Node) int {
	n := 0
	for _, node := range nodes {
		for _, l := range controlPlaneLabels {
			if _, ok := node.Labels[l]; ok {
				n++
				break
			}
		}
	}
	return n
}
