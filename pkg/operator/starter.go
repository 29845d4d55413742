// Package operator wires informers and controllers for the ClusterCSIDriver manila.csi.openstack.org.
package operator

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csicontrollerset"
	"github.com/openshift/library-go/pkg/operator/csi/csistorageclasscontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephxrefusal"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/runtimeconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/staleconditions"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/verified"
)

// resync is the config, operator and CRD informer factories' resync: it re-delivers every cached
// object to the handlers. Library-go's controllers need none (they resync every minute on their own);
// it is a net for our own controllers (pkg/controllers), which run on events only, should a watch
// ever miss one. Twice informercache.Resync: these objects change rarely and are few.
const resync = 20 * time.Minute

// Run is the controllercmd start function with default options.
func Run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	return DefaultOptions().Run(ctx, cc)
}

// Run lives the operator's life (life.go) in a process that does not elect itself (the in-process
// tests): it waits for the ClusterCSIDriver and for no predecessor to lead, starts the informers and
// controllers, and blocks until ctx is done; if a predecessor takes its lease meanwhile, the
// controllers stop, the ClusterCSIDriver is handed back, and Run returns an error when the
// predecessor lets go (the process restarts and takes over again). The operand's controllers start
// the first time Manila is found and keep running afterwards, so that pods can always unmount their
// volumes; that Manila was found is kept in the state ConfigMap, so a new process starts them at once.
func (o *Options) Run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	return (&life{o: o, cc: cc, stop: ctx, leading: ctx}).run()
}

// wiring is what the operator's informers and controllers are built from; the lifecycle's lead
// starts them with it, once per leadership.
type wiring struct {
	o     *Options
	cc    *controllercmd.ControllerContext
	s     settings
	f     Flavour
	c     *clients
	guest *guestLink
}

// start builds and starts the informers and controllers, which run until ctx ends; false when ctx
// ended before the caches synced. Each one-off report it writes is retried while ctx lasts.
func (w wiring) start(ctx context.Context) (bool, error) {
	o, s, f, c, guest, cc := w.o, w.s, w.f, w.c, w.guest, w.cc
	retry := func(what string, fn func(context.Context) error) bool { return retryUntil(ctx, what, fn) }
	recorder := newRecorder(ctx, c.kube, names.OperatorName, c.clock, f.IsHosted())
	go func() {
		<-ctx.Done()
		recorder.Shutdown()
	}()

	// The config observer (proxy and TLS profile into spec.observedConfig) runs from the process's
	// start, not with the operand: it needs nothing of Manila, and so the TLS profile is observed by the
	// time the controller Deployment is first rendered.
	operatorControllers := csicontrollerset.NewCSIControllerSet(condition.Declared(c.operatorClient, operatorSetWrites), recorder).
		WithLogLevelController().
		WithManagementStateController("Manila", false).
		WithCSIConfigObserverController(configObserverController, c.configInformer)
	// Rendered once, as JSON: library-go's controllers decode these manifests on every sync.
	render, err := s.assetVars().JSONAssetFunc()
	if err != nil {
		return false, err
	}
	in, err := newSharedInputs(f, c, render)
	if err != nil {
		return false, err
	}
	var operand *operandControllers
	var operandOnce sync.Once
	var operandStarted atomic.Bool
	startOperand := func(why string) {
		operandStarted.Store(true)
		operandOnce.Do(func() {
			klog.Infof("Starting the Manila CSI driver controllers: %s", why)
			operand.Run(ctx)
		})
	}
	own := o.ownControllers(ctx, f, c, in, recorder, startOperand, operandStarted.Load)
	if f.IsHosted() && !retry("Labelling the operator's ConfigMaps in namespace "+c.layout.ControllerNamespace, func(ctx context.Context) error {
		return labelOwnConfigMaps(ctx, c.mgmtKube, c.layout.ControllerNamespace)
	}) {
		return false, nil
	}
	// The informers of the controllers built so far fill while the one-off reports below are written
	// (none of the controllers runs before the reports).
	klog.Infof("Starting %s for ClusterCSIDriver %s", names.OperatorName, names.CSIDriverName)
	c.start(ctx.Done())
	if !retry("Reporting the --config file on ClusterCSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
		return o.reportServingConfig(ctx, c)
	}) {
		return false, nil
	}
	var missingRights []string
	if f.StandaloneExtras() {
		if !retry("Reviewing the operator's access to network policies", func(ctx context.Context) (err error) {
			missingRights, err = missingNetworkPolicyRights(ctx, c.kube)
			return err
		}) || !retry("Reporting the network policies on ClusterCSIDriver "+names.CSIDriverName, func(ctx context.Context) error {
			return reportNetworkPolicies(ctx, c, missingRights)
		}) {
			return false, nil
		}
	}
	operand = newOperandControllers(c, recorder, f, render, in.mounts, in.store, f.StandaloneExtras() && len(missingRights) == 0)
	// Listed before the start below, which so starts any of them no controller asked for.
	inputs := startInputs(c, in)
	c.start(ctx.Done()) // the operand controllers' informers
	// Without polling (library-go's controllers look every 100 ms): the caches the first Manila poll
	// and the StorageClasses' first sync read, so that those two run at once.
	if !cache.WaitFor(ctx, "", syncedCheckers(inputs)...) {
		return false, nil
	}
	at, found := in.store.Get(state.ManilaFoundKey)
	if !found && !retry("Reading CSIDriver "+names.CSIDriverName, func(ctx context.Context) (err error) {
		at, found, err = adoptFoundBefore(ctx, c, in.store)
		return err
	}) {
		return false, nil
	}
	if found {
		// A promise of an earlier process, or of a predecessor's installed driver: keep the operand
		// reconciled without waiting for OpenStack.
		startOperand("Manila was found at " + at + " (ConfigMap " + state.ConfigMapName + ")")
	}
	operatorControllers.Run(ctx, 1)
	for _, ctrl := range own {
		go ctrl.Run(ctx, 1)
	}
	if guest != nil {
		go guest.controller(cc, o.PollInterval).Run(ctx, 1)
	}
	return true, nil
}

// startInputs are the informers the first Manila poll and the StorageClasses' first sync read (with the
// state ConfigMap's, which says whether the operand starts at once).
func startInputs(c *clients, in *sharedInputs) []cache.SharedIndexInformer {
	out := []cache.SharedIndexInformer{
		c.operatorClient.Informer(),
		c.operatorInformer.Operator().V1().ClusterCSIDrivers().Informer(),
		c.configInformer.Config().V1().Infrastructures().Informer(),
		c.credentials.Core().V1().Secrets().Informer(),
		c.cloudConfig.Core().V1().ConfigMaps().Informer(),
		c.installConfig.Core().V1().ConfigMaps().Informer(),
		c.kubeInformers.InformersFor("").Storage().V1().StorageClasses().Informer(),
		in.operatorNS.ConfigMaps().Informer(),
		in.stateConfigMaps.Informer(),
	}
	if c.otherCredentials != nil {
		out = append(out, c.otherCredentials.Core().V1().Secrets().Informer())
	}
	return out
}

func syncedCheckers(informers []cache.SharedIndexInformer) []cache.DoneChecker {
	out := make([]cache.DoneChecker, 0, len(informers))
	for _, i := range informers {
		out = append(out, i.HasSyncedChecker())
	}
	return out
}

// ownControllers builds the operator's own controllers (pkg/controllers): the Manila poll, which
// starts the operand through startOperand once Manila is found, the config check, the StorageClasses,
// the driver secret, the runtime config, the removal of stale conditions and, where the CephFS instance
// can run (standalone), the diagnosis of claims whose cephx ID Manila refused.
func (o *Options) ownControllers(ctx context.Context, f Flavour, c *clients, in *sharedInputs, recorder events.Recorder, startOperand func(why string), operandStarted func() bool) []factory.Controller {
	clk, layout := c.clock, c.layout
	verifiedCredentials := &verified.Credentials{}
	secretSyncDeps := secretsync.Deps{
		Layout: layout, Verified: verifiedCredentials,
		OperatorClient: condition.Declared(c.operatorClient, secretSyncWrites), OperatorSecrets: c.credentials.Core().V1().Secrets(), OtherSecrets: c.otherCredentialSecrets(), CloudConfig: in.cloudConfigs,
		OperandSecrets: in.operandNS.Secrets(), OperandConfigMaps: in.operandNS.ConfigMaps(), Client: c.kube.CoreV1(),
		Namespaces: c.owned.Core().V1().Namespaces(), Infrastructures: c.configInformer.Config().V1().Infrastructures(),
		Recorder: recorder, Clock: clk, Grace: o.SecretGrace,
	}
	if f.IsHosted() {
		secretSyncDeps.ControllerConfigMaps = c.mgmtKube.CoreV1()
		secretSyncDeps.ControllerCopy = c.hcpCACopy.Core().V1().ConfigMaps()
	}
	listings := &manilatypes.Store{}
	sessions := &openstack.Shared{}
	schedule := manila.DefaultSchedule()
	schedule.Interval = o.PollInterval
	manilaController := manila.NewController(manila.Deps{Config: manila.Config{
		Schedule:           schedule,
		Grace:              o.FailedPollGrace,
		CatalogRefresh:     o.CatalogRefresh,
		RequestTimeout:     o.RequestTimeout,
		OpenStackTransport: o.OpenStackTransport,
		Listings:           listings,
		Sessions:           sessions,
		OperatorConfig:     in.config,
		Verified:           verifiedCredentials,
		// The state ConfigMap, or this process's own start of the operand: the cache may not show a
		// write of the key made at start yet.
		EverFound: func() bool {
			_, found := in.store.Get(state.ManilaFoundKey)
			return found || operandStarted()
		},
		OnManilaFound: func([]manilatypes.ShareType) {
			// Persisted first, so that a new process keeps the operand even if this one dies now.
			if _, found := in.store.Get(state.ManilaFoundKey); !found {
				if err := in.store.Set(ctx, state.ManilaFoundKey, clk.Now().UTC().Format(time.RFC3339)); err != nil {
					klog.Errorf("Recording in ConfigMap %s/%s that Manila was found: %v", layout.StateNamespace, state.ConfigMapName, err)
				}
			}
			startOperand("Manila found")
		},
	},
		Layout:         layout,
		OperatorClient: condition.Declared(c.operatorClient, manilaWrites), Secrets: c.credentials.Core().V1().Secrets(), OtherSecrets: c.otherCredentialSecrets(), OperatorConfigMaps: in.operatorNS.ConfigMaps(),
		CloudConfigMaps: in.cloudConfigs, Infrastructures: c.configInformer.Config().V1().Infrastructures(),
		Recorder: recorder, Clock: clk,
	})
	configController := configcheck.NewController(configcheck.Deps{
		Source: in.config, State: in.store, OperatorClient: condition.Declared(c.operatorClient, configCheckWrites),
		ConfigMaps: in.operatorNS.ConfigMaps(), StateConfigMaps: in.stateInformer, Client: in.migrate, Recorder: recorder,
	})
	runtimeConfigController := runtimeconfig.NewController(runtimeconfig.Deps{
		Config: in.config, OperatorClient: condition.Declared(c.operatorClient, runtimeConfigWrites),
		OperatorConfigMaps: in.operatorNS.ConfigMaps(), OperandConfigMaps: in.operandNS.ConfigMaps(),
		InstallConfig: c.installConfig.Core().V1().ConfigMaps(), Namespaces: c.owned.Core().V1().Namespaces(),
		Client: c.kube.CoreV1(), Recorder: recorder,
	})
	ccd := c.operatorInformer.Operator().V1().ClusterCSIDrivers()
	storageClassController := storageclasses.NewController(storageclasses.Deps{
		OperatorClient:           condition.Declared(c.operatorClient, storageClassWrites),
		Evaluator:                csistorageclasscontroller.NewStorageClassStateEvaluator(c.kube, ccd.Lister(), recorder),
		ClusterCSIDriverInformer: ccd.Informer(),
		StorageClasses:           c.kubeInformers.InformersFor("").Storage().V1().StorageClasses(),
		ConfigMaps:               in.operatorNS.ConfigMaps(),
		Client:                   c.kube.StorageV1(),
		Listings:                 listings,
		Config:                   in.config,
		Recorder:                 recorder,
		Clock:                    clk,
		InstallConfig:            c.installConfig.Core().V1().ConfigMaps(),
		Nodes:                    c.kubeInformers.InformersFor("").Core().V1().Nodes(),
		Kube:                     c.kube,
	})
	own := []factory.Controller{manilaController, configController, storageClassController, secretsync.NewController(secretSyncDeps),
		runtimeConfigController, staleconditions.NewController(condition.Declared(c.operatorClient, noWrites), ownConditions, recorder)}
	if f.OffersCephFS() {
		own = append(own, cephxrefusal.NewController(cephxrefusal.Deps{
			OperatorClient:     c.operatorClient,
			Config:             in.config,
			OperatorConfigMaps: in.operatorNS.ConfigMaps(),
			StorageClasses:     c.kubeInformers.InformersFor("").Storage().V1().StorageClasses(),
			Kube:               c.kube,
			Manila:             cephxrefusal.SharedManila{Sessions: sessions},
			Recorder:           recorder,
			Clock:              clk,
		}))
	}
	return own
}
