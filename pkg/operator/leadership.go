package operator

import (
	"context"
	"errors"
	"os"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	configclient "github.com/openshift/client-go/config/clientset/versioned"
	leaderelectionconverter "github.com/openshift/library-go/pkg/config/leaderelection"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/leasegate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// Election is the operator's own leader election (the start command disables controllercmd's):
// the same lease (manila-csi-driver-operator-lock), library-go's timings (by topology unless set),
// and client-go's elector, but without controllercmd's os.Exit right after the lease is released, so
// that a stopping operator can hand the ClusterCSIDriver over (Options.HandOverWait).
type Election struct {
	// LeaseDuration, RenewDeadline and RetryPeriod override library-go's timings when set.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// errLostLease ends the process as controllercmd does when the lease is lost: a new one starts over.
var errLostLease = errors.New("lost the leader election lease")

// RunElected runs Run while this process holds the operator's lease; it is the start command's
// controllercmd start function.
func (o *Options) RunElected(ctx context.Context, cc *controllercmd.ControllerContext) error {
	hostname, err := os.Hostname()
	if err != nil {
		return err
	}
	o.identity = hostname + "_" + string(uuid.NewUUID())
	config := leaderelectionconverter.LeaderElectionDefaulting(configv1.LeaderElection{
		LeaseDuration: metav1.Duration{Duration: o.Election.LeaseDuration},
		RenewDeadline: metav1.Duration{Duration: o.Election.RenewDeadline},
		RetryPeriod:   metav1.Duration{Duration: o.Election.RetryPeriod},
	}, cc.OperatorNamespace, names.OperatorName+"-lock")
	if o.Election == (Election{}) && o.GuestKubeconfig == "" && singleReplica(ctx, cc.KubeConfig) {
		config = leaderelectionconverter.LeaderElectionSNOConfig(config)
	}
	// As controllercmd: a blocked connection must not outlast a renewal.
	leaseConfig := rest.CopyConfig(cc.ProtoKubeConfig)
	leaseConfig.Timeout = config.RenewDeadline.Duration
	lec, err := leaderelectionconverter.ToLeaderElectionWithLease(leaseConfig, config, names.OperatorName, o.identity)
	if err != nil {
		return err
	}
	started := make(chan context.Context, 1)
	stopped := make(chan struct{})
	lec.Callbacks = leaderelection.LeaderCallbacks{
		OnStartedLeading: func(leading context.Context) { started <- leading },
		OnStoppedLeading: func() { close(stopped) },
	}
	elector, err := leaderelection.NewLeaderElector(lec)
	if err != nil {
		return err
	}
	go elector.Run(ctx) // releases the lease when ctx ends (ReleaseOnCancel)
	var leading context.Context
	select {
	case leading = <-started:
	case <-stopped:
		return nil // stopped before it led
	}
	err = o.run(leading, ctx, cc)
	<-stopped
	if err == nil && ctx.Err() == nil {
		return errLostLease
	}
	return err
}

// singleReplica is whether Infrastructure/cluster says the control plane is a single node, as
// controllercmd's topology detector reads it (false when unknown).
func singleReplica(ctx context.Context, config *rest.Config) bool {
	client, err := configclient.NewForConfig(config)
	if err != nil {
		return false
	}
	infra, err := client.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	return err == nil && infra.Status.ControlPlaneTopology == configv1.SingleReplicaTopologyMode
}

// handOver runs as the process stops (HandOverWait set): whoever leads next decides. A predecessor
// that takes its lease gets the ClusterCSIDriver handed back once it is Available (its cluster-storage-
// operator rollout stops this pod as soon as the predecessor's pod runs, before the predecessor leads);
// this operator's successor taking the lease, or nobody within HandOverWait, leaves the conditions to
// be written again by the same controllers.
func (o *Options) handOver(c *clients, gate *leasegate.Gate) {
	ctx, cancel := context.WithTimeout(context.Background(), o.HandOverWait)
	defer cancel()
	stoppedAt := c.clock.Now()
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if h, held := gate.Held(); held {
			// Repeated for a few seconds: a sync running as the controllers stopped may still write.
			return handBack(ctx, c, h.Generation) && c.clock.Since(stoppedAt) > 5*time.Second, nil
		}
		return o.successorLeads(ctx, c, gate.Namespace()), nil
	})
	if err != nil {
		klog.Infof("No successor led within %s; the ClusterCSIDriver's conditions stay as this operator left them", o.HandOverWait)
	}
}

// successorLeads is whether another process of this operator holds its lease now.
func (o *Options) successorLeads(ctx context.Context, c *clients, namespace string) bool {
	lease, err := c.mgmtKube.CoordinationV1().Leases(namespace).Get(ctx, names.OperatorName+"-lock", metav1.GetOptions{})
	if err != nil {
		return false
	}
	holder, _, live := leasegate.Live(lease, c.clock.Now())
	return live && holder != o.identity
}
