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
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"

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

// RunElected is the start command's controllercmd start function: it elects this process (client-go's
// elector on the operator's lease) and lives the operator's life (life.go) while it leads. Whatever
// ends that life, the lease is released before RunElected returns, and only a stop asked for returns
// nil: a process that cannot lead, or no longer may, exits non-zero and its pod starts a new one.
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
	electing, release := context.WithCancel(ctx)
	go elector.Run(electing) // releases the lease when electing ends (ReleaseOnCancel)
	defer func() {
		release()
		<-stopped
	}()
	var leading context.Context
	select {
	case leading = <-started:
	case <-stopped:
		return nil // stopped before it led
	}
	return (&life{o: o, cc: cc, stop: ctx, leading: leading}).run()
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
