package hooks

import (
	"fmt"
	"strings"

	opv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// NoPlaceholders refuses a pod spec that still holds a ${...} placeholder. Without it the workload is
// created with the literal text in its arguments. The one a cluster can cause is ${TLS_CIPHER_SUITES}:
// library-go leaves it when the observed TLS profile has no cipher suite, as from an APIServer
// `Custom` profile whose ciphers all are unknown to it; the error says so.
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
				if placeholder == tlsCipherSuites {
					return fmt.Errorf("container %s: %s is not filled in: the TLS profile of APIServer cluster "+
						"(spec.tlsSecurityProfile) gives no cipher suite this operator's kube-rbac-proxy knows; "+
						"the workload is not applied until it does", c.Name, placeholder)
				}
				return fmt.Errorf("container %s: %s is not filled in", c.Name, placeholder)
			}
		}
	}
	return nil
}

const tlsCipherSuites = "${TLS_CIPHER_SUITES}"

// DeploymentNoPlaceholders is NoPlaceholders as a Deployment hook.
func DeploymentNoPlaceholders(spec *opv1.OperatorSpec, d *appsv1.Deployment) error {
	panicIfTriggered(spec) // a no-op unless built for a test with -tags panictrigger
	return NoPlaceholders(&d.Spec.Template.Spec)
}

// DaemonSetNoPlaceholders is NoPlaceholders as a DaemonSet hook.
func DaemonSetNoPlaceholders(_ *opv1.OperatorSpec, ds *appsv1.DaemonSet) error {
	return NoPlaceholders(&ds.Spec.Template.Spec)
}
