// Package hooks holds Deployment and DaemonSet hooks, each returned with the informers it reads so
// callers wire both together.
package hooks

import (
	"github.com/openshift/library-go/pkg/controller/factory"
	corev1 "k8s.io/api/core/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
)

var controlPlaneLabels = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"}

// ControlPlaneNodeEvents triggers the controller Deployment's sync on events of control-plane nodes
// only (a node gaining or losing the label included), for library-go's
// deploymentcontroller.WithReplicasHook, which sets the replicas to the number of nodes the
// Deployment's node selector (node-role.kubernetes.io/master) matches: the status updates of a
// cluster's workers never re-run it.
func ControlPlaneNodeEvents(nodes corev1informers.NodeInformer) factory.Informer {
	return Events(nodes.Informer(), isControlPlane)
}

func isControlPlane(obj any) bool {
	node, ok := unwrap(obj).(*corev1.Node)
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
