package operator

import (
	"context"
	"os"
	"time"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guestlink"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/guestkubeconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
)

// guestLink is the hosted operator's way to its guest: the followed kubeconfig file and what reports
// on it in the management cluster.
type guestLink struct {
	file     *guestkubeconfig.File
	reporter *guestlink.Reporter
}

// connectGuest reads the guest kubeconfig file, waiting while it is missing or unusable (a pod can
// start before HyperShift has written the Secret) and reporting that in the management cluster. It
// returns nil, nil when ctx ends first.
func (o *Options) connectGuest(ctx context.Context, cc *controllercmd.ControllerContext) (*guestLink, error) {
	cp := hosted.ControlPlane{Namespace: cc.OperatorNamespace, Availability: hosted.SingleReplica}
	if err := cp.Validate(); err != nil {
		return nil, err
	}
	mgmt, err := kubernetes.NewForConfig(cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	var clk clock.PassiveClock = clock.RealClock{}
	if cc.Clock != nil {
		clk = cc.Clock
	}
	link := &guestLink{reporter: &guestlink.Reporter{
		Recorder: cc.EventRecorder.WithComponentSuffix("guest-link"),
		Pods:     mgmt.CoreV1().Pods(cc.OperatorNamespace), PodName: os.Getenv("POD_NAME"), Clock: clk,
	}}
	// Retried every few seconds up to the poll interval: the kubelet writes a new Secret's volume
	// within a minute or so.
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Steps: 1 << 30, Cap: o.PollInterval}
	err = wait.ExponentialBackoffWithContext(ctx, backoff, func(ctx context.Context) (bool, error) {
		f, err := guestkubeconfig.Load(o.GuestKubeconfig)
		if err != nil {
			if rerr := link.reporter.Report(ctx, guestlink.KubeconfigVerdict(err, false)); rerr != nil {
				klog.Errorf("Reporting the guest link: %v", rerr)
			}
			return false, nil
		}
		link.file = f
		return true, nil
	})
	if err != nil {
		return nil, nil // stopped
	}
	klog.Infof("Serving the guest cluster at %s (kubeconfig %s) from the hosted control plane's namespace %s", link.file.Server(), o.GuestKubeconfig, cc.OperatorNamespace)
	return link, nil
}

// controller returns the guest link controller, probing every interval.
func (g *guestLink) controller(cc *controllercmd.ControllerContext, interval time.Duration) factory.Controller {
	probe := discovery.NewDiscoveryClientForConfigOrDie(g.file.Config())
	return guestlink.NewController(guestlink.Deps{
		File: g.file, Probe: probe, Reporter: g.reporter, Interval: interval, Recorder: cc.EventRecorder,
	})
}
