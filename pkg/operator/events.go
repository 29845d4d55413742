package operator

import (
	"context"
	"os"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/eventrecorder"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// newRecorder returns the recorder every controller derives its own from: one event broadcaster for
// all of them. Events are about the operator's Deployment, found from its pod (POD_NAME) as
// controllercmd does; outside a pod they are about the Deployment the manifests name. Hosted, kube is
// the guest's, whose admin looks in the operator namespace there: they are about the Deployment the
// standalone manifests name (the pod is in the management cluster, which the guest cannot refer to).
func newRecorder(ctx context.Context, kube kubernetes.Interface, component string, clk clock.PassiveClock, hosted bool) *eventrecorder.Recorder {
	about := &corev1.ObjectReference{Kind: "Deployment", APIVersion: "apps/v1", Namespace: names.OperatorNamespace, Name: names.OperatorName}
	switch {
	case hosted:
	case os.Getenv("POD_NAME") != "":
		ref, err := events.GetControllerReferenceForCurrentPod(ctx, kube, names.OperatorNamespace, nil)
		if err != nil {
			klog.Warningf("Finding the operator's Deployment from its pod, for events: %v", err)
		} else {
			about = ref
		}
	}
	return eventrecorder.New(kube.CoreV1().Events(names.OperatorNamespace),
		events.RecommendedClusterSingletonCorrelatorOptions(), component, about, clk)
}
