package hooks

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCountControlPlane(t *testing.T) {
	node := func(labels ...string) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}}}
		for _, l := range labels {
			n.Labels[l] = ""
		}
		return n
	}
	tests := []struct {
		name  string
		nodes []*corev1.Node
		want  int
	}{
		{"none", nil, 0},
		{"workers only", []*corev1.Node{node("node-role.kubernetes.io/worker")}, 0},
		{"master label", []*corev1.Node{node("node-role.kubernetes.io/master"), node()}, 1},
		{"both labels count once", []*corev1.Node{node("node-role.kubernetes.io/master", "node-role.kubernetes.io/control-plane")}, 1},
		{"three control plane", []*corev1.Node{node("node-role.kubernetes.io/control-plane"), node("node-role.kubernetes.io/control-plane"), node("node-role.kubernetes.io/master")}, 3},
	}
	for _, tt := range tests {
		if got := CountControlPlane(tt.nodes); got != tt.want {
			t.Errorf("%s: CountControlPlane = %d, want %d", tt.name, got, tt.want)
		}
	}
}
