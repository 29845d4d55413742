// Package operator wires informers and controllers for the ClusterCSIDriver manila.csi.openstack.org.
package operator

import (
	"context"
	"fmt"
	"sync"
	"time"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csicontrollerset"
	"github.com/openshift/library-go/pkg/operator/csi/csistorageclasscontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/storageclasses"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/sharetypes"
)

const resync = 20 * time.Minute

// Run is the controllercmd start function with default options.
func Run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	return DefaultOptions().Run(ctx, cc)
}

// clients are the API clients and informer factories shared by all controllers.
type clients struct {
	kube             kubernetes.Interface
	dynamic          dynamic.Interface
	kubeInformers    v1helpers.KubeInformersForNamespaces
	configInformer   configinformers.SharedInformerFactory
	crdInformer      apiextinformers.SharedInformerFactory
	operatorInformer operatorinformers.SharedInformerFactory
	operatorClient   v1helpers.OperatorClientWithFinalizers
	start            func(stop <-chan struct{})
}

func newClients(cc *controllercmd.ControllerContext) (*clients, error) {
	var clk clock.PassiveClock = clock.RealClock{}
	if cc.Clock != nil {
		clk = cc.Clock
	}
	kube, err := kubernetes.NewForConfig(withRateLimits(cc.ProtoKubeConfig))
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	config, err := configclient.NewForConfig(cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	apiext, err := apiextclient.NewForConfig(cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	operatorTyped, err := operatorclient.NewForConfig(cc.KubeConfig)
	if err != nil {
		return nil, err
	}
	operatorClient, dynamicInformers, err := newOperatorClient(clk, cc.KubeConfig)
	if err != nil {
		return nil, fmt.Errorf("ClusterCSIDriver client: %w", err)
	}
	c := &clients{
		kube:    kube,
		dynamic: dyn,
		kubeInformers: v1helpers.NewKubeInformersForNamespaces(kube, "",
			names.OperatorNamespace, names.OperandNamespace, names.CloudConfigNamespace),
		configInformer:   configinformers.NewSharedInformerFactory(config, resync),
		crdInformer:      apiextinformers.NewSharedInformerFactory(apiext, resync),
		operatorInformer: operatorinformers.NewSharedInformerFactory(operatorTyped, resync),
		operatorClient:   operatorClient,
	}
	c.start = func(stop <-chan struct{}) {
		c.kubeInformers.Start(stop)
		c.configInformer.Start(stop)
		c.crdInformer.Start(stop)
		c.operatorInformer.Start(stop)
		dynamicInformers.Start(stop)
	}
	return c, nil
}

// withRateLimits raises client-go's default 5 QPS, at which a cloud with a thousand share types
// would wait minutes for its StorageClasses; an explicit setting is kept.
func withRateLimits(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	if c.QPS == 0 {
		c.QPS, c.Burst = 50, 100
	}
	return c
}

// Run starts the operator's informers and controllers and blocks until ctx is done. The operand's
// controllers start the first time Manila is found and keep running afterwards, so that pods can
// always unmount their volumes.
func (o *Options) Run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	s, err := o.settings()
	if err != nil {
		return err
	}
	c, err := newClients(cc)
	if err != nil {
		return err
	}
	var clk clock.PassiveClock = clock.RealClock{}
	if cc.Clock != nil {
		clk = cc.Clock
	}

	operatorControllers := csicontrollerset.NewCSIControllerSet(c.operatorClient, cc.EventRecorder).
		WithLogLevelController().
		WithManagementStateController("Manila", false)
	render := assets.Vars{Images: s.images, FSGroupPolicy: s.fsGroupPolicy}.AssetFunc()
	validateMounts, err := mountsValidator(render)
	if err != nil {
		return err
	}
	operatorNS := c.kubeInformers.InformersFor(names.OperatorNamespace).Core().V1()
	operandNS := c.kubeInformers.InformersFor(names.OperandNamespace).Core().V1()
	cloudConfigNS := c.kubeInformers.InformersFor(names.CloudConfigNamespace).Core().V1()
	configSource := operatorconfig.NewSource(operatorNS.ConfigMaps().Lister().ConfigMaps(names.OperatorNamespace), validateMounts)
	operand := newOperandControllers(c, cc.EventRecorder, render, hooks.Mounts{
		Config: configSource,
		OpenStackCA: func() bool {
			return secretsync.CAInUse(cloudConfigNS.ConfigMaps().Lister().ConfigMaps(names.CloudConfigNamespace),
				operandNS.ConfigMaps().Lister().ConfigMaps(names.OperandNamespace))
		},
		Informers: []factory.Informer{operatorNS.ConfigMaps().Informer(), cloudConfigNS.ConfigMaps().Informer()},
	})
	secretSyncController := secretsync.NewController(secretsync.Deps{
		OperatorClient: c.operatorClient, OperatorSecrets: operatorNS.Secrets(), CloudConfig: cloudConfigNS.ConfigMaps(),
		OperandSecrets: operandNS.Secrets(), OperandConfigMaps: operandNS.ConfigMaps(), Client: c.kube.CoreV1(),
		Recorder: cc.EventRecorder, Clock: clk, Grace: o.SecretGrace,
	})
	listings := &sharetypes.Store{}

	var startOperand sync.Once
	schedule := manila.DefaultSchedule()
	schedule.Interval = o.PollInterval
	manilaController := manila.NewController(manila.Config{
		Schedule:           schedule,
		OpenStackTransport: o.OpenStackTransport,
		Listings:           listings,
		OperatorConfig:     configSource,
		OnManilaFound: func([]openstack.ShareType) {
			startOperand.Do(func() {
				klog.Infof("Manila found: starting the Manila CSI driver controllers")
				operand.Run(ctx)
			})
		},
	}, c.operatorClient, operatorNS.Secrets(), operatorNS.ConfigMaps(),
		cloudConfigNS.ConfigMaps(), cc.EventRecorder, clk)
	configController := configcheck.NewController(configSource, c.operatorClient, operatorNS.ConfigMaps(), cc.EventRecorder)
	ccd := c.operatorInformer.Operator().V1().ClusterCSIDrivers()
	storageClassController := storageclasses.NewController(storageclasses.Deps{
		OperatorClient:           c.operatorClient,
		Evaluator:                csistorageclasscontroller.NewStorageClassStateEvaluator(c.kube, ccd.Lister(), cc.EventRecorder),
		ClusterCSIDriverInformer: ccd.Informer(),
		StorageClasses:           c.kubeInformers.InformersFor("").Storage().V1().StorageClasses(),
		ConfigMaps:               operatorNS.ConfigMaps(),
		Client:                   c.kube.StorageV1(),
		Listings:                 listings,
		Config:                   configSource,
		Recorder:                 cc.EventRecorder,
		Clock:                    clk,
	})

	klog.Infof("Starting %s for ClusterCSIDriver %s", names.OperatorName, names.CSIDriverName)
	c.start(ctx.Done())
	operatorControllers.Run(ctx, 1)
	for _, ctrl := range []factory.Controller{manilaController, configController, storageClassController, secretSyncController} {
		go ctrl.Run(ctx, 1)
	}

	<-ctx.Done()
	return nil
}
