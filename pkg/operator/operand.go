package operator

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/csi/csiconfigobservercontroller"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivercontrollerservicecontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/staticresourcecontroller"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/workloadselector"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

const (
	snapshotClassCRD  = "volumesnapshotclasses.snapshot.storage.k8s.io"
	serviceMonitorCRD = "servicemonitors.monitoring.coreos.com"

	volumeSnapshotClassController = "VolumeSnapshotClassController"
	serviceMonitorController      = "ServiceMonitorController"
)

// operandControllers install and keep the Manila and NFS CSI drivers.
type operandControllers struct {
	static factory.Controller
	// controllerService renders kube-rbac-proxy's TLS flags from the observed TLS profile, so it starts
	// once the config observer has written it: waiting for an input is not a failure to report.
	controllerService factory.Controller
	node, nfsNode     factory.Controller
	configObserver    factory.Controller
	snapshotCls       factory.Controller
	monitor           factory.Controller
	selectors         factory.Controller
	operatorClient    v1helpers.OperatorClient
}

func newOperandControllers(c *clients, recorder events.Recorder, render resourceapply.AssetFunc, mounts hooks.Mounts) *operandControllers {
	operandInformers := c.kubeInformers.InformersFor(names.OperandNamespace)
	operandConfigMaps, operandSecrets := operandInformers.Core().V1().ConfigMaps(), operandInformers.Core().V1().Secrets()

	w := NewWorkloadHooks(WorkloadInputs{
		OperandConfigMaps: operandConfigMaps, OperandSecrets: operandSecrets,
		Nodes: c.kubeInformers.InformersFor("").Core().V1().Nodes(), Mounts: mounts,
	})
	nodeManifest, err := render(assets.NodeDaemonSet)
	if err != nil {
		panic(err)
	}
	nfsManifest, err := render(assets.NFSNodeDaemonSet)
	if err != nil {
		panic(err) // embedded asset: a missing one is a build defect caught by the golden tests
	}
	controllerManifest, err := render(assets.ControllerDeployment)
	if err != nil {
		panic(err)
	}
	configObserver := csiconfigobservercontroller.NewCSIConfigObserverController("ManilaDriverCSIConfigObserverController",
		observedConfigClient{c.operatorClient}, c.configInformer, recorder)
	deployments, daemonSets := operandInformers.Apps().V1().Deployments(), operandInformers.Apps().V1().DaemonSets()
	controllerService := csidrivercontrollerservicecontroller.NewCSIDriverControllerServiceController("ManilaDriverControllerServiceController",
		controllerManifest, recorder, c.operatorClient, c.kube, deployments, c.configInformer,
		w.ControllerInformers, w.Controller...)
	node := csidrivernodeservicecontroller.NewCSIDriverNodeServiceController("ManilaDriverNodeServiceController",
		nodeManifest, recorder, c.operatorClient, c.kube, daemonSets, w.NodeInformers, w.Node...)
	nfsNode := csidrivernodeservicecontroller.NewCSIDriverNodeServiceController("NFSDriverNodeServiceController",
		nfsManifest, recorder, c.operatorClient, c.kube, daemonSets, w.NFSNodeInformers, w.NFSNode...)
	// The same controllers on events only (their inputs' informers), without library-go's one-minute resync.
	infrastructures := c.configInformer.Config().V1().Infrastructures().Informer()
	controllerService = workloadOnEvents(controllerService, c.operatorClient, recorder,
		slices.Concat(w.ControllerInformers, []factory.Informer{deployments.Informer(), infrastructures})...)
	node = workloadOnEvents(node, c.operatorClient, recorder, slices.Concat(w.NodeInformers, []factory.Informer{daemonSets.Informer()})...)
	nfsNode = workloadOnEvents(nfsNode, c.operatorClient, recorder, slices.Concat(w.NFSNodeInformers, []factory.Informer{daemonSets.Informer()})...)

	selectors := workloadselector.NewController(workloadselector.Deps{
		OperatorClient: c.operatorClient,
		Deployments:    operandInformers.Apps().V1().Deployments(),
		DaemonSets:     operandInformers.Apps().V1().DaemonSets(),
		Client:         c.kube.AppsV1(),
		Pods:           c.kube.CoreV1(),
		Recorder:       recorder,
		Workloads: []workloadselector.Workload{
			deploymentWorkload(controllerManifest), daemonSetWorkload(nodeManifest), daemonSetWorkload(nfsManifest),
		},
	})

	static := staticResources(c, recorder, render)

	return &operandControllers{
		node:              node,
		controllerService: controllerService,
		configObserver:    configObserver,
		operatorClient:    c.operatorClient,
		nfsNode:           nfsNode,
		selectors:         selectors,
		static:            static,
		snapshotCls: conditionalStatic(volumeSnapshotClassController, c, recorder, render,
			assets.VolumeSnapshotClass, schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"},
			snapshotClassCRD),
		monitor: conditionalStatic(serviceMonitorController, c, recorder, render,
			assets.ServiceMonitor, schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"},
			serviceMonitorCRD),
	}
}

// staticResources applies the operand's namespace, ServiceAccounts, RBAC, Service, CA ConfigMap, PDB
// and CSIDriver with library-go's static-resource controller, run on events of those objects.
func staticResources(c *clients, recorder events.Recorder, render resourceapply.AssetFunc) factory.Controller {
	files := append(assets.StaticResources(), assets.CSIDriver)
	src := staticresourcecontroller.NewStaticResourceController("ManilaDriverStaticResourcesController", render, files,
		(&resourceapply.ClientHolder{}).WithKubernetes(c.kube).WithDynamicClient(c.dynamic), c.operatorClient, recorder,
	) // its GETs are answered by the cached client, from the informers below
	objectNames := assetNames(render, files...)
	ns, cluster := c.kubeInformers.InformersFor(names.OperandNamespace), c.owned
	return eventDriven(src.Name(), src.Sync, c.operatorClient, recorder, objectNames,
		ns.Core().V1().ServiceAccounts().Informer(), ns.Core().V1().Services().Informer(), ns.Core().V1().ConfigMaps().Informer(),
		ns.Rbac().V1().Roles().Informer(), ns.Rbac().V1().RoleBindings().Informer(), ns.Policy().V1().PodDisruptionBudgets().Informer(),
		cluster.Rbac().V1().ClusterRoles().Informer(), cluster.Rbac().V1().ClusterRoleBindings().Informer(),
		cluster.Core().V1().Namespaces().Informer(), cluster.Storage().V1().CSIDrivers().Informer())
}

func deploymentWorkload(manifest []byte) workloadselector.Workload {
	d := resourceread.ReadDeploymentV1OrDie(manifest)
	return workloadselector.Workload{Kind: workloadselector.Deployment, Name: d.Name, Selector: d.Spec.Selector}
}

func daemonSetWorkload(manifest []byte) workloadselector.Workload {
	d := resourceread.ReadDaemonSetV1OrDie(manifest)
	return workloadselector.Workload{Kind: workloadselector.DaemonSet, Name: d.Name, Selector: d.Spec.Selector}
}

// Run starts every operand controller; they stop with ctx.
func (o *operandControllers) Run(ctx context.Context) {
	for _, ctrl := range []factory.Controller{o.static, o.node, o.configObserver, o.nfsNode, o.snapshotCls, o.monitor, o.selectors} {
		go ctrl.Run(ctx, 1)
	}
	go func() {
		// The operator client's informer cache answers; no request per check.
		err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
			spec, _, _, err := o.operatorClient.GetOperatorState()
			return err == nil && tlsObserved(spec), nil
		})
		if err == nil {
			o.controllerService.Run(ctx, 1)
		}
	}()
}

// tlsObserved reports whether the config observer has written the cluster's TLS profile, which the
// controller Deployment's ${TLS_CIPHER_SUITES} and ${TLS_MIN_VERSION} come from.
func tlsObserved(spec *opv1.OperatorSpec) bool {
	if len(spec.ObservedConfig.Raw) == 0 {
		return false
	}
	var config map[string]any
	if err := json.Unmarshal(spec.ObservedConfig.Raw, &config); err != nil {
		return false
	}
	suites, found, err := unstructured.NestedStringSlice(config, csiconfigobservercontroller.CipherSuitesPath()...)
	return err == nil && found && len(suites) > 0
}
