package hooks

import (
	"fmt"
	"strings"

	opv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// NoPlaceholders refuses a pod spec that still holds a ${...} placeholder. Without it the workload is
// created with the literal text in its arguments (an image variable missing from the environment, a
// hook left out). What the cluster supplies is checked before, by ClusterValues.
func NoPlaceholders(spec *corev1.PodSpec) error {
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		fields := append([]string{c.Image}, append(c.Command, c.Args...)...)
		for _, e := range c.Env {
			fields = append(fields, e.Value)
		}
		for _, f := range fields {
			if i := strings.Index(f, "${"); i >= 0 {
				end := strings.Index(f[i:], "}")
				if end < 0 {
					end = len(f) - i - 1
				}
				placeholder := f[i : i+end+1]
				return fmt.Errorf("container %s: %s is not filled in", c.Name, placeholder)
			}
		}
	}
	return nil
}

// DeploymentNoPlaceholders is NoPlaceholders as a Deployment hook.
func DeploymentNoPlaceholders(spec *opv1.OperatorSpec, d *appsv1.Deployment) error {
	panicIfTriggered(spec) // a no-op unless built for a test with -tags panictrigger
	return NoPlaceholders(&d.Spec.Template.Spec)
}

// DaemonSetNoPlaceholders is NoPlaceholders as a DaemonSet hook.
func DaemonSetNoPlaceholders(_ *opv1.OperatorSpec, ds *appsv1.DaemonSet) error {
	return NoPlaceholders(&ds.Spec.Template.Spec)
}
