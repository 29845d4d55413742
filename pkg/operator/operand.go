package operator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	opv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csiconfigobservercontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csicontrollerset"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/workloadselector"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/informercache"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

const (
	snapshotClassCRD = "volumesnapshotclasses.snapshot.storage.k8s.io"

	staticResourcesController   = "ManilaDriverStaticResourcesController"
	controllerServiceController = "ManilaDriverControllerServiceController"
	nodeServiceController       = "ManilaDriverNodeServiceController"
	nfsNodeServiceController    = "NFSDriverNodeServiceController"
	configObserverController    = "ManilaDriverCSIConfigObserverController"
	// controlPlaneStaticResourcesController applies, hosted, the controller's static objects in the
	// management cluster.
	controlPlaneStaticResourcesController = "ManilaDriverControlPlaneStaticResourcesController"
	volumeSnapshotClassController         = "VolumeSnapshotClassController"
	serviceMonitorController              = "ServiceMonitorController"
	// retiredResourcesController deletes what earlier releases of this operator applied under names
	// it no longer uses (retiredAsset).
	retiredResourcesController = "ManilaDriverRetiredResourcesController"
)

// operandControllers install and keep the Manila and NFS CSI drivers: library-go's CSI controller set
// (static resources with the CSIDriver, the VolumeSnapshotClass while its CRD exists, the
// ServiceMonitor, the controller Deployment and the Manila node DaemonSet), library-go's node service
// controller for the NFS node DaemonSet, and our workload selector controller. All of library-go's run
// on library-go's own schedule: on events of their informers and every minute (their ResyncEvery).
type operandControllers struct {
	set *csicontrollerset.CSIControllerSet
	// controlPlane, hosted only, is the controller's side in the management cluster: its static
	// objects and the controller Deployment.
	controlPlane *csicontrollerset.CSIControllerSet
	nfsNode      factory.Controller
	selectors    factory.Controller
	// cephFS, standalone only, runs and removes the CephFS instance (operator config cephfs.enabled).
	cephFS         factory.Controller
	operatorClient v1helpers.OperatorClient
	// snapshotCRDSynced: library-go's conditional controller does not wait for our CRD informer, and
	// would otherwise take "not synced" for "no CRD" until its next resync.
	snapshotCRDSynced func() bool
}

// newOperandControllers builds the operand's controllers of flavour f (store keeps what the CephFS
// instance must remember across restarts); networkPolicies is whether the
// operator may write the operand namespace's network policies (standalone only).
func newOperandControllers(c *clients, recorder events.Recorder, f Flavour, render resourceapply.AssetFunc, mounts hooks.Mounts, store *state.Store, networkPolicies bool) *operandControllers {
	o := &operandControllers{}
	operandInformers := c.kubeInformers.InformersFor(names.OperandNamespace)
	inputs := WorkloadInputs{
		OperandConfigMaps: operandInformers.Core().V1().ConfigMaps(), OperandSecrets: operandInformers.Core().V1().Secrets(),
		Nodes: c.kubeInformers.InformersFor("").Core().V1().Nodes(), Mounts: mounts,
		Infrastructures: c.configInformer.Config().V1().Infrastructures().Lister(), Recorder: recorder,
		Flavour: f,
	}
	if f.IsHosted() {
		inputs.ControllerConfigMaps = c.mgmtInformers.InformersFor(c.layout.ControllerNamespace).Core().V1().ConfigMaps()
		inputs.ControllerSecrets = c.metricsCert.Core().V1().Secrets()
		hcps := c.hostedControlPlanes.ForResource(hosted.HostedControlPlaneResource)
		inputs.HostedControlPlaneInformer = hcps.Informer()
		inputs.HostedControlPlane = func() (hosted.ControlPlane, error) {
			return currentControlPlane(c.layout.ControllerNamespace, hcps.Lister())
		}
	}
	w := NewWorkloadHooks(inputs)
	node, nfsNode := w.Node(assets.NodeDaemonSet), w.Node(assets.NFSNodeDaemonSet)
	nodeManifest, nfsManifest, controllerManifest := mustRender(render, node.Asset), mustRender(render, nfsNode.Asset), mustRender(render, w.ControllerAsset)

	// The static resources' informers: the operand namespace's, and for the cluster-scoped objects
	// (ClusterRoles, ClusterRoleBindings, CSIDriver, and the operand Namespace, which library-go takes
	// from that namespace's factory) the factory of the operator's labelled objects only.
	static := v1helpers.NewFakeKubeInformersForNamespaces(map[string]informers.SharedInformerFactory{
		"": c.owned, names.OperandNamespace: informercache.WithNamespacesFrom(operandInformers, c.owned.Core().V1().Namespaces())})
	snapshotCRDs := c.crdInformerFor(snapshotClassCRD)
	crdExists := func() bool {
		_, err := snapshotCRDs.Lister().Get(snapshotClassCRD)
		return err == nil
	}
	never := func() bool { return false }

	status := condition.Declared(c.operatorClient, operandWrites)
	set := csicontrollerset.NewCSIControllerSet(status, recorder).
		WithStaticResourcesController(staticResourcesController, c.kube, c.dynamic, static, render, f.GuestStatic()).
		// Created while the snapshot CRD exists, never deleted: snapshots taken with it keep a class.
		WithConditionalStaticResourcesController(volumeSnapshotClassController, c.kube, c.dynamic, static, render,
			[]string{assets.VolumeSnapshotClass}, crdExists, never)
	deployments := operandInformers
	var controlPlane *csicontrollerset.CSIControllerSet
	if f.IsHosted() {
		// The controller's side: its static objects and the Deployment in the management cluster.
		mgmt := c.controllerDeployment
		deployments = mgmt
		mgmtStatic, mgmtRender := f.ManagementStatic(render)
		// Its every-minute Gets of the ServiceAccount, Service and PDB are answered from their informers
		// (each of its one object): a hosted cluster's idle requests to the management API.
		hcp := c.mgmtInformers.InformersFor(c.layout.ControllerNamespace)
		cachedMgmt := informercache.CachedGets(c.mgmtKube, informercache.Getters{Namespace: c.layout.ControllerNamespace,
			ServiceAccounts: hcp.Core().V1().ServiceAccounts().Lister(), Services: hcp.Core().V1().Services().Lister(),
			PodDisruptionBudgets: hcp.Policy().V1().PodDisruptionBudgets().Lister()})
		controlPlane = csicontrollerset.NewCSIControllerSet(status, recorder).
			WithStaticResourcesController(controlPlaneStaticResourcesController, cachedMgmt, c.mgmtDynamic, c.mgmtInformers,
				mgmtRender, mgmtStatic).
			WithCSIDriverControllerService(controllerServiceController, render, w.ControllerAsset, c.mgmtKube,
				mgmt, c.configInformer, w.ControllerInformers, w.Controller...)
	} else {
		set = set.WithCSIDriverControllerService(controllerServiceController, render, w.ControllerAsset, c.kube,
			operandInformers, c.configInformer, w.ControllerInformers, w.Controller...)
	}
	if f.OffersCephFS() {
		o.cephFS = newCephFSController(c, recorder, render, inputs, mounts.Config, store, static, crdExists)
	}
	if f.StandaloneExtras() {
		if networkPolicies {
			set = set.WithConditionalStaticResourcesController(networkPoliciesController, c.kube, c.dynamic, static, render,
				assets.NetworkPolicies(), func() bool { return true }, never)
		}
		// Its DELETE of the retired PDB on every sync is sent only while its informer holds the PDB.
		retired := informercache.SkipsAbsentDeletes(c.kube, informercache.Getters{Namespace: names.OperandNamespace,
			PodDisruptionBudgets: static.InformersFor(names.OperandNamespace).Policy().V1().PodDisruptionBudgets().Lister()})
		set = set.WithConditionalStaticResourcesController(retiredResourcesController, retired, c.dynamic, static, retiredAsset,
			[]string{retiredPDB}, never, func() bool { return true }).
			// library-go ignores the ServiceMonitor's NotFound while monitoring's CRD is absent.
			WithServiceMonitorController(serviceMonitorController, c.dynamic, render, assets.ServiceMonitor)
	}
	set = set.WithCSIDriverNodeService(nodeServiceController, render, node.Asset, c.kube,
		operandInformers, node.Informers, node.Hooks...)
	nfsNodeController := csidrivernodeservicecontroller.NewCSIDriverNodeServiceController(nfsNodeServiceController,
		nfsManifest, recorder, status, c.kube, operandInformers.Apps().V1().DaemonSets(), nfsNode.Informers, nfsNode.Hooks...)

	selectors := workloadselector.NewController(workloadselector.Deps{
		OperatorClient:      condition.Declared(c.operatorClient, workloadSelectorWrites),
		Deployments:         deployments.Apps().V1().Deployments(),
		DeploymentNamespace: c.layout.ControllerNamespace,
		DeploymentClient:    c.mgmtKube.AppsV1(),
		DaemonSets:          operandInformers.Apps().V1().DaemonSets(),
		Client:              c.kube.AppsV1(),
		Pods:                c.kube.CoreV1(),
		Recorder:            recorder,
		Workloads: []workloadselector.Workload{
			deploymentWorkload(controllerManifest), daemonSetWorkload(nodeManifest), daemonSetWorkload(nfsManifest),
		},
	})
	o.set, o.controlPlane, o.nfsNode, o.selectors, o.operatorClient = set, controlPlane, nfsNodeController, selectors, c.operatorClient
	o.snapshotCRDSynced = snapshotCRDs.Informer().HasSynced
	return o
}

// currentControlPlane is the control plane in namespace as its HostedControlPlane (HyperShift makes
// one per HCP namespace) says now; without one, HyperShift's defaults.
func currentControlPlane(namespace string, lister cache.GenericLister) (hosted.ControlPlane, error) {
	objs, err := lister.ByNamespace(namespace).List(labels.Everything())
	if err != nil {
		return hosted.ControlPlane{}, err
	}
	if len(objs) == 0 {
		return hosted.ControlPlane{Namespace: namespace, Availability: hosted.SingleReplica}, nil
	}
	u, ok := objs[0].(*unstructured.Unstructured)
	if !ok {
		return hosted.ControlPlane{}, fmt.Errorf("HostedControlPlane in %s: unexpected %T", namespace, objs[0])
	}
	return hosted.FromHostedControlPlane(namespace, u)
}

func mustRender(render resourceapply.AssetFunc, file string) []byte {
	data, err := render(file)
	if err != nil {
		panic(err) // embedded asset: a missing one is a build defect caught by the golden tests
	}
	return data
}

func deploymentWorkload(manifest []byte) workloadselector.Workload {
	d := resourceread.ReadDeploymentV1OrDie(manifest)
	return workloadselector.Workload{Kind: workloadselector.Deployment, Name: d.Name, Selector: d.Spec.Selector}
}

func daemonSetWorkload(manifest []byte) workloadselector.Workload {
	d := resourceread.ReadDaemonSetV1OrDie(manifest)
	return workloadselector.Workload{Kind: workloadselector.DaemonSet, Name: d.Name, Selector: d.Spec.Selector}
}

// Run starts every operand controller once the config observer has observed the cluster's TLS
// profile (the controller Deployment's ${TLS_CIPHER_SUITES} and ${TLS_MIN_VERSION} come from it), so
// that a first start shows no Degraded for an input that is merely not there yet. A profile that
// gives no cipher suite is observed all the same: the controller service then reports it (Degraded,
// naming the APIServer's tlsSecurityProfile). They stop with ctx.
func (o *operandControllers) Run(ctx context.Context) {
	go func() {
		// The operator client's informer cache answers; no request per check.
		err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(context.Context) (bool, error) {
			spec, _, _, err := o.operatorClient.GetOperatorState()
			return err == nil && tlsObserved(spec) && o.snapshotCRDSynced(), nil
		})
		if err != nil {
			return // stopped
		}
		o.set.Run(ctx, 1)
		if o.controlPlane != nil {
			o.controlPlane.Run(ctx, 1)
		}
		go o.nfsNode.Run(ctx, 1)
		go o.selectors.Run(ctx, 1)
		if o.cephFS != nil {
			go o.cephFS.Run(ctx, 1)
		}
	}()
}

// tlsObserved reports whether the config observer has written the cluster's TLS profile: its minimum
// version, which it writes for every profile (possibly empty), whatever the cipher suites come to.
func tlsObserved(spec *opv1.OperatorSpec) bool {
	if len(spec.ObservedConfig.Raw) == 0 {
		return false
	}
	var config map[string]any
	if err := json.Unmarshal(spec.ObservedConfig.Raw, &config); err != nil {
		return false
	}
	_, found, err := unstructured.NestedString(config, csiconfigobservercontroller.MinTLSVersionPath()...)
	return err == nil && found
}

// retiredPDB is the controller's PDB as this operator named it before it took the predecessors' name
// (assets/pdb.yaml): left in place, two PDBs would select the controller's pods, and the eviction API
// refuses to evict a pod that more than one selects, so every node drain would block on them.
const retiredPDB = "retired/manila-csi-driver-controller-pdb"

// retiredAsset renders what retiredResourcesController deletes: enough of each object to name it.
func retiredAsset(name string) ([]byte, error) {
	if name != retiredPDB {
		return nil, fmt.Errorf("no retired asset %s", name)
	}
	return []byte(`apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: manila-csi-driver-controller-pdb
  namespace: ` + names.OperandNamespace + "\n"), nil
}
