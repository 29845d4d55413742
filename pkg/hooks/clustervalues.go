package hooks

import (
	"strings"
	"sync"

	opv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/clusterinput"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/platform"
)

// The placeholders ClusterValues fills, in the controller Deployment's arguments. They take the
// place of library-go's ${CLUSTER_ID}, ${TLS_CIPHER_SUITES} and ${TLS_MIN_VERSION}, which library-go
// replaces as text of the manifest before it is decoded: a value holding `"` or a newline would
// become structure of the Deployment (hosted, in the management cluster). These are filled after the
// decode, into one argument each, and only with values clusterinput accepts.
const (
	InfrastructureNamePlaceholder = "${INFRASTRUCTURE_NAME}"
	CipherSuitesPlaceholder       = "${OBSERVED_TLS_CIPHER_SUITES}"
	MinTLSVersionPlaceholder      = "${OBSERVED_TLS_MIN_VERSION}"
)

// ClusterValues fills the controller Deployment with the values read from the cluster it serves (the
// guest, when hosted) once they are checked (pkg/clusterinput), and refuses the workloads while one is
// not: the hook's error keeps the last applied workload and becomes its controller's Degraded condition,
// naming the object and field. It runs before library-go's proxy hook, whose input it checks too.
type ClusterValues struct {
	Infrastructures configv1listers.InfrastructureLister
	// Recorder, if set, gets a warning event each time the refusal changes.
	Recorder events.Recorder

	mu   sync.Mutex
	last map[string]string // the last refusal per workload kind
}

// Deployment is the hook for the controller Deployment: the proxy, the TLS profile and the
// infrastructure name.
func (v *ClusterValues) Deployment() dc.DeploymentHookFunc {
	return func(spec *opv1.OperatorSpec, d *appsv1.Deployment) error {
		err := v.fill(spec, &d.Spec.Template.Spec)
		v.report("Deployment "+d.Name, err)
		return err
	}
}

// DaemonSet is the hook for the node DaemonSets: the proxy only (they take no other cluster value).
func (v *ClusterValues) DaemonSet() csidrivernodeservicecontroller.DaemonSetHookFunc {
	return func(spec *opv1.OperatorSpec, ds *appsv1.DaemonSet) error {
		err := clusterinput.ObservedProxy(spec.ObservedConfig.Raw)
		v.report("DaemonSet "+ds.Name, err)
		return err
	}
}

func (v *ClusterValues) fill(spec *opv1.OperatorSpec, pod *corev1.PodSpec) error {
	if err := clusterinput.ObservedProxy(spec.ObservedConfig.Raw); err != nil {
		return err
	}
	tls, err := clusterinput.ObservedTLS(spec.ObservedConfig.Raw)
	if err != nil {
		return err
	}
	infra, err := v.Infrastructures.Get(platform.InfrastructureName)
	if err != nil {
		return err
	}
	if err := clusterinput.InfrastructureName(infra.Status.InfrastructureName); err != nil {
		return err
	}
	fill := strings.NewReplacer(
		InfrastructureNamePlaceholder, infra.Status.InfrastructureName,
		CipherSuitesPlaceholder, strings.Join(tls.CipherSuites, ","),
		MinTLSVersionPlaceholder, tls.MinTLSVersion,
	)
	for i := range pod.Containers {
		for j, arg := range pod.Containers[i].Args {
			pod.Containers[i].Args[j] = fill.Replace(arg)
		}
	}
	return nil
}

// report sends a warning event when the workload's refusal is new; the condition carries it meanwhile.
func (v *ClusterValues) report(workload string, err error) {
	if v.Recorder == nil {
		return
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	v.mu.Lock()
	if v.last == nil {
		v.last = map[string]string{}
	}
	changed := msg != v.last[workload]
	v.last[workload] = msg
	v.mu.Unlock()
	if changed && err != nil {
		v.Recorder.Warningf("ClusterValueRefused", "%s: %s; it is not applied until the value is corrected", workload, msg)
	}
}
