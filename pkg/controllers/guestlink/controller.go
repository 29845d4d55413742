// Package guestlink watches, in the hosted flavour, the operator's way to its guest cluster: the
// guest kubeconfig file and the guest's kube-apiserver behind it.
package guestlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/guestkubeconfig"
)

// ControllerName names the controller; it writes no condition of the guest's ClusterCSIDriver (which
// is unreachable exactly when it has something to say) but the operator pod's PodConditionType.
const ControllerName = "GuestLinkController"

// PodConditionType is the operator pod's condition on the management cluster: True while the guest
// is reachable with the guest kubeconfig. The hosted Deployment names it in readinessGates, so an
// operator cut off from its guest is not Ready, which HyperShift reports for the control plane.
const PodConditionType = "manila.csi.openstack.org/GuestAPIReachable"

// Reasons of PodConditionType and of the events sent when it changes.
const (
	ReasonReachable           = "GuestAPIReachable"
	ReasonKubeconfigMissing   = "GuestKubeconfigMissing"
	ReasonKubeconfigInvalid   = "GuestKubeconfigInvalid"
	ReasonUnreachable         = "GuestAPIUnreachable"
	ReasonCredentialsRejected = "GuestCredentialsRejected"
)

// Verdict is the state of the way to the guest.
type Verdict struct {
	Reachable bool
	Reason    string
	// Message names the file or the server and the problem, never a credential.
	Message string
}

// Reporter tells the management cluster the verdict: an event when it changes, and the operator
// pod's condition. Both live in the management cluster, which the guest's outage does not touch.
type Reporter struct {
	Recorder events.Recorder
	// Pods and PodName address the operator's own pod; PodName "" (not in a pod) writes no condition.
	Pods    corev1client.PodInterface
	PodName string
	Clock   clock.PassiveClock

	mu   sync.Mutex
	last *Verdict
	// gated is whether the pod names PodConditionType in its readinessGates, read once (a pod's
	// readiness gates never change); nil until read.
	gated *bool
}

// Report records v if it differs from the last verdict reported (or the last write of the pod
// condition failed).
func (r *Reporter) Report(ctx context.Context, v Verdict) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last != nil && *r.last == v {
		return nil
	}
	switch {
	case v.Reachable:
		klog.Infof("The guest cluster is reachable: %s", v.Message)
		if r.last != nil {
			r.Recorder.Eventf(v.Reason, "%s", v.Message)
		}
	default:
		klog.Warningf("The guest cluster is not reachable (%s): %s", v.Reason, v.Message)
		r.Recorder.Warningf(v.Reason, "%s", v.Message)
	}
	if err := r.setPodCondition(ctx, v); err != nil {
		r.last = nil // try again at the next report
		return fmt.Errorf("pod %s condition %s: %w", r.PodName, PodConditionType, err)
	}
	r.last = &v
	return nil
}

// setPodCondition writes the condition only on a pod that gates its readiness on it
// (manifests/hosted). cluster-storage-operator's hosted Deployment has no such gate, and its Role
// grants no pods/status: there the event and the log carry the verdict alone.
func (r *Reporter) setPodCondition(ctx context.Context, v Verdict) error {
	if r.PodName == "" || r.Pods == nil {
		return nil
	}
	if r.gated == nil {
		pod, err := r.Pods.Get(ctx, r.PodName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		gated := slices.ContainsFunc(pod.Spec.ReadinessGates, func(g corev1.PodReadinessGate) bool { return g.ConditionType == PodConditionType })
		r.gated = &gated
	}
	if !*r.gated {
		return nil
	}
	status := "False"
	if v.Reachable {
		status = "True"
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]any{{
		"type": PodConditionType, "status": status, "reason": v.Reason, "message": v.Message,
		"lastTransitionTime": metav1.NewTime(r.Clock.Now()),
	}}}})
	if err != nil {
		return err
	}
	_, err = r.Pods.Patch(ctx, r.PodName, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}

// Controller re-reads the guest kubeconfig file (HyperShift rotates it in place) and asks the guest
// kube-apiserver its version, every Interval.
//
// Watches: nothing; it runs every Interval (the Manila poll's), so a cut or restored link is told
// within one poll.
// Writes: through Reporter, an event in the management cluster when the verdict changes and the
// operator pod's condition PodConditionType.
// Policy: it deletes nothing and stops nothing: while the guest is away every other controller keeps
// its last state and retries; a rotated file is in use from the next request on (guestkubeconfig).
type Controller struct {
	file     *guestkubeconfig.File
	probe    discovery.ServerVersionInterface
	reporter *Reporter
}

// Deps are the Controller's collaborators.
type Deps struct {
	File *guestkubeconfig.File
	// Probe asks the guest its version through File's configuration (any authenticated identity may).
	Probe    discovery.ServerVersionInterface
	Reporter *Reporter
	Interval time.Duration
	Recorder events.Recorder
}

// NewController returns the factory controller.
func NewController(d Deps) factory.Controller {
	c := &Controller{file: d.File, probe: d.Probe, reporter: d.Reporter}
	return factory.New().
		WithSync(c.sync).
		ResyncEvery(d.Interval).
		ToController(ControllerName, d.Recorder.WithComponentSuffix("guest-link"))
}

func (c *Controller) sync(ctx context.Context, _ factory.SyncContext) error {
	return c.reporter.Report(ctx, c.check())
}

func (c *Controller) check() Verdict {
	if _, err := c.file.Reload(); err != nil {
		return KubeconfigVerdict(err, true)
	}
	server := c.file.Server()
	_, err := c.probe.ServerVersion()
	var status apierrors.APIStatus
	switch {
	case err == nil:
		return Verdict{Reachable: true, Reason: ReasonReachable, Message: fmt.Sprintf("the guest kube-apiserver %s answers with the kubeconfig of %s", server, c.file.Path())}
	case errors.As(err, &status) && (status.Status().Code == http.StatusUnauthorized || status.Status().Code == http.StatusForbidden):
		return Verdict{Reason: ReasonCredentialsRejected, Message: fmt.Sprintf("the guest kube-apiserver %s refuses the credentials of %s (%s): the guest's objects are kept as they are until it accepts them",
			server, c.file.Path(), http.StatusText(int(status.Status().Code)))}
	default:
		return Verdict{Reason: ReasonUnreachable, Message: fmt.Sprintf("the guest kube-apiserver %s does not answer: %v; the guest's objects are kept as they are until it does", server, err)}
	}
}

// KubeconfigVerdict is the verdict for a guest kubeconfig file that cannot be used; inUse says
// whether an earlier good one is in use meanwhile (none at start, while the operator waits).
func KubeconfigVerdict(err error, inUse bool) Verdict {
	reason := ReasonKubeconfigInvalid
	if errors.Is(err, guestkubeconfig.ErrMissing) {
		reason = ReasonKubeconfigMissing
	}
	if inUse {
		return Verdict{Reason: reason, Message: err.Error() + "; the last good one stays in use"}
	}
	return Verdict{Reason: reason, Message: err.Error() + "; the operator waits for it before serving the guest"}
}
