package operator

import (
	"fmt"

	configclient "github.com/openshift/client-go/config/clientset/versioned"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	operatorv1client "github.com/openshift/client-go/operator/clientset/versioned/typed/operator/v1"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apiextinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions"
	apiextv1informers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/storageclass"
)

// clients are the API clients and informer factories shared by all controllers.
type clients struct {
	kube          kubernetes.Interface
	dynamic       dynamic.Interface
	apiext        apiextclient.Interface
	kubeInformers v1helpers.KubeInformersForNamespaces
	// owned caches the operator's cluster-scoped operand objects only (by label).
	owned          informers.SharedInformerFactory
	configInformer configinformers.SharedInformerFactory
	// crdInformers are informers of single CRDs, by name (crdInformerFor).
	crdInformers     []apiextinformers.SharedInformerFactory
	operatorInformer operatorinformers.SharedInformerFactory
	operatorClient   v1helpers.OperatorClientWithFinalizers
	// clusterCSIDrivers reads and writes the ClusterCSIDriver directly, after the informers stopped.
	clusterCSIDrivers operatorv1client.ClusterCSIDriverInterface
	clock             clock.PassiveClock
	start             func(stop <-chan struct{})

	// installConfig caches ConfigMap kube-system/cluster-config-v1 only (nfs-shareClient: machineNetwork).
	installConfig informers.SharedInformerFactory
	// credentials caches Secret manila-cloud-credentials only: the operator namespace holds other
	// drivers' cloud credentials, which the operator may neither read nor keep in memory.
	credentials informers.SharedInformerFactory
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
	kubeInformers := informercache.KubeForNamespaces(kube, "",
		names.OperatorNamespace, names.OperandNamespace, names.CloudConfigNamespace)
	owned := informercache.LabelledCluster(kube, storageclass.OwnerLabel+"="+storageclass.OwnerLabelValue)
	c := &clients{
		kube:              kube,
		owned:             owned,
		dynamic:           dyn,
		apiext:            apiext,
		kubeInformers:     kubeInformers,
		configInformer:    configinformers.NewSharedInformerFactory(config, resync),
		operatorInformer:  operatorinformers.NewSharedInformerFactory(operatorTyped, resync),
		installConfig:     informercache.Named(kube, machinenetwork.InstallConfigNamespace, machinenetwork.InstallConfigName),
		credentials:       informercache.Named(kube, names.OperatorNamespace, names.CloudCredentialsSecret),
		operatorClient:    operatorClient,
		clusterCSIDrivers: operatorTyped.OperatorV1().ClusterCSIDrivers(),
		clock:             clk,
	}
	c.start = func(stop <-chan struct{}) {
		c.kubeInformers.Start(stop)
		c.owned.Start(stop)
		c.configInformer.Start(stop)
		for _, f := range c.crdInformers {
			f.Start(stop)
		}
		c.operatorInformer.Start(stop)
		c.installConfig.Start(stop)
		c.credentials.Start(stop)
		dynamicInformers.Start(stop)
	}
	return c, nil
}

// crdInformerFor watches one CRD, by name: a cluster holds hundreds, some of them large.
func (c *clients) crdInformerFor(name string) apiextv1informers.CustomResourceDefinitionInformer {
	f := apiextinformers.NewSharedInformerFactoryWithOptions(c.apiext, resync, apiextinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + name
	}))
	c.crdInformers = append(c.crdInformers, f)
	return f.Apiextensions().V1().CustomResourceDefinitions()
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
