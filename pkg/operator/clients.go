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
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// clients are the API clients and informer factories shared by all controllers. Standalone there is
// one cluster. Hosted, every field but the management ones below is of the guest cluster (the
// ClusterCSIDriver, the guest's operand, its classes), and the management ones are of the hosted
// control plane's namespace on the management cluster (docs/hosted.md).
type clients struct {
	layout names.Layout
	// mgmtKube and mgmtDynamic are of the cluster where layout's namespaces are; standalone, kube's.
	mgmtKube    kubernetes.Interface
	mgmtDynamic dynamic.Interface
	// mgmtInformers has informers of layout's namespaces; standalone, it is kubeInformers; hosted, the
	// HCP namespace's, with the kinds the operator applies there routed (hcpRoutes).
	mgmtInformers v1helpers.KubeInformersForNamespaces
	// operatorConfig caches the operator namespace's ConfigMaps: standalone its factory in
	// kubeInformers (the operator config and the state); hosted, of the guest, the operator config only
	// (the guest's RBAC grants that one by name; the state is in the HCP namespace).
	operatorConfig informers.SharedInformerFactory
	// metricsCert caches the metrics serving certificate only, hosted (the HCP namespace's Secrets are
	// the whole control plane's); standalone the operand namespace's Secret informer serves.
	metricsCert informers.SharedInformerFactory
	// hostedControlPlanes, hosted only, caches the HCP namespace's HostedControlPlane.
	hostedControlPlanes dynamicinformer.DynamicSharedInformerFactory

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
	// otherCredentials, hosted only, caches the credentials' other name there (cloudsecret).
	otherCredentials informers.SharedInformerFactory
	// cloudConfig caches the cloud config ConfigMap only (layout's CloudConfigName): openshift-config,
	// or hosted the HCP namespace, holds many other ConfigMaps, CA bundles among them.
	cloudConfig informers.SharedInformerFactory
	// ownHCP, hosted only, caches the operator's own ConfigMaps in the HCP namespace (by its label,
	// hcpRoutes), which holds the whole control plane's. hostedState (the state ConfigMap) and
	// hcpCACopy (the copy of the OpenStack CA) are that factory, read by name; controllerDeployment
	// caches the controller Deployment only.
	ownHCP, hostedState, hcpCACopy, controllerDeployment informers.SharedInformerFactory
}

// hcpRoutes are the HCP namespace's informers of the kinds the operator applies there (the static
// assets beside the controller: hosted.Management): that namespace holds the whole hosted control
// plane's ConfigMaps, ServiceAccounts, Services and PDBs. The operator's ConfigMaps there (the
// trusted CA bundle, the OpenStack CA's copy, the state) come from own, which selects them by the
// operator's label: one watch for the three. The ServiceAccount, Service and PDB each have an
// informer of their one object (a watch is of one kind: a label would not make fewer). It returns the
// factories, to be started.
func hcpRoutes(kube kubernetes.Interface, own informers.SharedInformerFactory, hcp string) (informercache.Routes, []informers.SharedInformerFactory) {
	sa := informercache.Named(kube, hcp, assets.ObjectName(assets.ControllerServiceAccount))
	svc := informercache.Named(kube, hcp, assets.ObjectName(assets.MetricsService))
	pdb := informercache.Named(kube, hcp, assets.ObjectName(assets.ControllerPDB))
	return informercache.Routes{ConfigMaps: own.Core().V1().ConfigMaps(), ServiceAccounts: sa.Core().V1().ServiceAccounts(),
		Services: svc.Core().V1().Services(), PodDisruptionBudgets: pdb.Policy().V1().PodDisruptionBudgets()}, []informers.SharedInformerFactory{own, sa, svc, pdb}
}

// controllerDeploymentName is the controller Deployment's name, as its asset has it.
var controllerDeploymentName = assets.ObjectName(assets.ControllerDeployment)

// newClients builds the clients of one cluster from cc (standalone), or, in the hosted flavour, of the
// guest from guestConfig and of the management cluster (its HCP namespace) from cc.
func newClients(cc *controllercmd.ControllerContext, f Flavour, guestConfig *rest.Config) (*clients, error) {
	var clk clock.PassiveClock = clock.RealClock{}
	if cc.Clock != nil {
		clk = cc.Clock
	}
	kubeConfig, protoKubeConfig := cc.KubeConfig, cc.ProtoKubeConfig
	if f.IsHosted() {
		kubeConfig, protoKubeConfig = guestConfig, protobuf(guestConfig)
	}
	kubeConfig, protoKubeConfig = withRateLimits(kubeConfig), withRateLimits(protoKubeConfig)
	kube, err := kubernetes.NewForConfig(protoKubeConfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(kubeConfig)
	if err != nil {
		return nil, err
	}
	config, err := configclient.NewForConfig(kubeConfig)
	if err != nil {
		return nil, err
	}
	apiext, err := apiextclient.NewForConfig(kubeConfig)
	if err != nil {
		return nil, err
	}
	operatorTyped, err := operatorclient.NewForConfig(kubeConfig)
	if err != nil {
		return nil, err
	}
	operatorClient, dynamicInformers, err := newOperatorClient(clk, kubeConfig)
	if err != nil {
		return nil, fmt.Errorf("ClusterCSIDriver client: %w", err)
	}
	kubeInformers := informercache.KubeForNamespaces(kube, "", names.OperatorNamespace, names.OperandNamespace)
	owned := informercache.LabelledCluster(kube, classplan.OwnerLabel+"="+classplan.OwnerLabelValue)
	c := &clients{
		kube:           kube,
		owned:          owned,
		dynamic:        dyn,
		apiext:         apiext,
		kubeInformers:  kubeInformers,
		configInformer: configinformers.NewSharedInformerFactory(config, resync),
		// Of the cluster's ClusterCSIDrivers (Cinder's and others'), the operator's own only.
		operatorInformer: operatorinformers.NewSharedInformerFactoryWithOptions(operatorTyped, resync,
			operatorinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + names.CSIDriverName })),
		installConfig:     informercache.Named(kube, machinenetwork.InstallConfigNamespace, machinenetwork.InstallConfigName),
		operatorClient:    operatorClient,
		clusterCSIDrivers: operatorTyped.OperatorV1().ClusterCSIDrivers(),
		clock:             clk,
		layout:            f.Layout(),
		mgmtKube:          kube,
		mgmtDynamic:       dyn,
		mgmtInformers:     kubeInformers,
	}
	var hostedFactories []informers.SharedInformerFactory
	if f.IsHosted() {
		hcp := c.layout.ControllerNamespace
		if c.mgmtKube, err = kubernetes.NewForConfig(withRateLimits(cc.ProtoKubeConfig)); err != nil {
			return nil, err
		}
		if c.mgmtDynamic, err = dynamic.NewForConfig(withRateLimits(cc.KubeConfig)); err != nil {
			return nil, err
		}
		c.ownHCP = informercache.Labelled(c.mgmtKube, hcp, names.OwnerSelector)
		routes, routeFactories := hcpRoutes(c.mgmtKube, c.ownHCP, hcp)
		c.mgmtInformers = v1helpers.NewFakeKubeInformersForNamespaces(map[string]informers.SharedInformerFactory{
			hcp: informercache.Routed(informercache.KubeForNamespaces(c.mgmtKube, hcp).InformersFor(hcp), routes)})
		hostedFactories = append(hostedFactories, routeFactories...)
		c.hcpCACopy = c.ownHCP
		c.metricsCert = informercache.Named(c.mgmtKube, hcp, MetricsCertSecret)
		c.operatorConfig = informercache.Named(kube, names.OperatorNamespace, operatorconfig.ConfigMapName)
		c.hostedControlPlanes = dynamicinformer.NewFilteredDynamicSharedInformerFactory(c.mgmtDynamic, informercache.Resync, hcp, nil)
		c.otherCredentials = informercache.Named(c.mgmtKube, hcp, c.layout.OtherCredentialsSecret)
		c.hostedState = c.ownHCP
		c.controllerDeployment = informercache.Named(c.mgmtKube, hcp, controllerDeploymentName)
		hostedFactories = append(hostedFactories, c.metricsCert, c.operatorConfig, c.otherCredentials, c.controllerDeployment)
	} else {
		c.operatorConfig = kubeInformers.InformersFor(names.OperatorNamespace)
	}
	c.credentials = informercache.Named(c.mgmtKube, c.layout.CredentialsNamespace, names.CloudCredentialsSecret)
	c.cloudConfig = informercache.Named(c.mgmtKube, c.layout.CloudConfigNamespace, c.layout.CloudConfigName)
	c.start = func(stop <-chan struct{}) {
		if c.layout.Hosted {
			c.mgmtInformers.Start(stop)
			c.hostedControlPlanes.Start(stop)
		}
		for _, f := range hostedFactories {
			f.Start(stop)
		}
		c.kubeInformers.Start(stop)
		c.owned.Start(stop)
		c.configInformer.Start(stop)
		for _, f := range c.crdInformers {
			f.Start(stop)
		}
		c.operatorInformer.Start(stop)
		c.installConfig.Start(stop)
		c.credentials.Start(stop)
		c.cloudConfig.Start(stop)
		dynamicInformers.Start(stop)
	}
	return c, nil
}

// crdInformerFor watches one CRD, by name: a cluster holds hundreds, some of them large. Only its
// existence is read, so the cache keeps its metadata, not its schema (informercache.CRDMetadataOnly).
func (c *clients) crdInformerFor(name string) apiextv1informers.CustomResourceDefinitionInformer {
	f := apiextinformers.NewSharedInformerFactoryWithOptions(c.apiext, resync, apiextinformers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "metadata.name=" + name
	}), apiextinformers.WithTransform(informercache.CRDMetadataOnly))
	c.crdInformers = append(c.crdInformers, f)
	return f.Apiextensions().V1().CustomResourceDefinitions()
}

// protobuf asks for protobuf where the API has it, as controllercmd's ProtoKubeConfig does.
func protobuf(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c.ContentType = "application/vnd.kubernetes.protobuf"
	return c
}

// withRateLimits raises client-go's default 5 QPS, for every client: at 5 a cloud with a thousand
// share types would wait minutes for its StorageClasses, and the ClusterCSIDriver's status writes of
// some thirty controllers queued behind each other for seconds, each sent on a read that others'
// writes had outdated by then (a conflict, retried into the same queue). An explicit setting is kept.
func withRateLimits(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	if c.QPS == 0 {
		c.QPS, c.Burst = 50, 100
	}
	return c
}

// otherCredentialSecrets is the informer of the credentials' other name, hosted; nil standalone.
func (c *clients) otherCredentialSecrets() corev1informers.SecretInformer {
	if c.otherCredentials == nil {
		return nil
	}
	return c.otherCredentials.Core().V1().Secrets()
}
