package operator

import (
	"context"
	"slices"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/csi/csicontrollerset"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/contentwatch"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/cephfs"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/nodeupdates"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
)

// The CephFS instance's controllers, each the owner of its conditions.
const (
	cephFSStaticResourcesController     = "ManilaCephFSDriverStaticResourcesController"
	cephFSVolumeSnapshotClassController = "ManilaCephFSDriverVolumeSnapshotClassController"
	cephFSControllerServiceController   = "ManilaCephFSDriverControllerServiceController"
	cephFSNodeServiceController         = "ManilaCephFSDriverNodeServiceController"
	cephCSINodeServiceController        = "CephCSIDriverNodeServiceController"
	cephCSINodeUpdateController         = "CephCSINodeUpdateController"
	cephFSServiceMonitorController      = "ManilaCephFSDriverServiceMonitorController"
	cephFSDriverContainer               = "csi-driver"
	cephFSControllerCephCSIContainer    = "csi-driver-cephfs"
)

// cephFSInstanceConditions are the condition types of the CephFS instance's controllers.
var cephFSInstanceConditions = conditiontypes.New(
	optionalWorkloadConditions(cephFSControllerServiceController, cephFSNodeServiceController, cephCSINodeServiceController),
	conditiontypes.Degraded(cephFSStaticResourcesController, cephFSVolumeSnapshotClassController, cephFSServiceMonitorController),
	cephCSINodeUpdateWrites.Types())

// cephCSINodeUpdateWrites are the types of the instance's report of nodes on an older ceph-csi pod.
var cephCSINodeUpdateWrites = conditiontypes.New([]string{nodeupdates.ConditionPending(cephCSINodeUpdateController)})

// cephCSIReplaced is what replacing a node's ceph-csi pod does, for nodeupdates' message.
const cephCSIReplaced = "deleting the old pod ends the ceph-fuse mounts it serves, and a pod using one reads " +
	"\"transport endpoint is not connected\" until it is recreated (kernel mounts stay)"

// CephFSMetricsCertSecret is the serving-cert Secret service-ca issues for the CephFS controller's
// metrics Service (assets/cephfs_service.yaml), as MetricsCertSecret is the NFS controller's; its hash
// rolls the CephFS controller pods. service-ca makes the Service its owner, so it goes with it.
var CephFSMetricsCertSecret = assets.ServingCertSecret(assets.CephFSMetricsService)

// CephFSWorkloadHooks are the hooks of the CephFS instance's workloads (standalone), for start and
// render alike: instanceHooks' shared ones for their own extraMounts targets and metrics certificate,
// the ceph-csi image from the operator config on the controller and on ceph-csi's DaemonSet, and the
// driver secret's hash and the topology on the Manila CephFS node plugin; ceph-csi's node plugin speaks
// only Ceph's protocols.
func CephFSWorkloadHooks(in WorkloadInputs, image hooks.CephCSIImage) InstanceHooks {
	return instanceHooks(in, InstanceSpec{
		ControllerAsset: assets.CephFSControllerDeployment, ControllerTarget: extramounts.CephFSControllerTarget,
		MetricsCertSecret: CephFSMetricsCertSecret,
		ControllerHooks:   []dc.DeploymentHookFunc{image.Deployment()},
		Nodes: []NodeSpec{{
			Asset: assets.CephFSNodeDaemonSet, Target: extramounts.CephFSNodeTarget,
			Hooks: []csidrivernodeservicecontroller.DaemonSetHookFunc{
				csidrivernodeservicecontroller.WithSecretHashAnnotationHook(names.OperandNamespace, names.DriverSecret, in.OperandSecrets),
				hooks.Topology{Config: in.Mounts.Config}.DaemonSet(),
			},
		}, {
			Asset: assets.CephCSINodeDaemonSet, Target: extramounts.CephCSINodeTarget,
			Hooks: []csidrivernodeservicecontroller.DaemonSetHookFunc{image.DaemonSet()},
		}},
	})
}

// cephFSInstance is one run of the CephFS instance: a second library-go CSI controller set (static
// objects with the controller's metrics Service, VolumeSnapshotClass, ServiceMonitor, controller
// Deployment, Manila CephFS node DaemonSet) and library-go's node service controller for ceph-csi's
// DaemonSet, with this operator's report of the nodes on an older ceph-csi pod (nodeupdates) and the
// informers of ceph-csi's pods and revisions it reads, which run only with the instance.
type cephFSInstance struct {
	set              *csicontrollerset.CSIControllerSet
	cephCSI, updates factory.Controller
	cephCSIPods      informers.SharedInformerFactory
}

func (i cephFSInstance) Start(ctx context.Context) {
	i.set.Run(ctx, 1)
	go i.cephCSI.Run(ctx, 1)
	i.cephCSIPods.Start(ctx.Done())
	go i.updates.Run(ctx, 1)
}

// newCephFSController returns the controller that runs and removes the CephFS instance (standalone).
func newCephFSController(c *clients, recorder events.Recorder, render resourceapply.AssetFunc, in WorkloadInputs, config *operatorconfig.Source,
	store *state.Store, static v1helpers.KubeInformersForNamespaces, crdExists func() bool) factory.Controller {
	operandInformers := c.kubeInformers.InformersFor(names.OperandNamespace)
	daemonSets := operandInformers.Apps().V1().DaemonSets()
	image := hooks.CephCSIImage{Config: config, InUse: func() string {
		if v, ok := store.Get(state.CephCSIImageKey); ok {
			return v
		}
		ds, err := daemonSets.Lister().DaemonSets(names.OperandNamespace).Get(string(extramounts.CephCSINodePlugin))
		if err != nil {
			return ""
		}
		return hooks.ImageOf(&ds.Spec.Template.Spec, cephFSDriverContainer)
	}}
	h := CephFSWorkloadHooks(in, image)
	node, cephCSINode := h.Node(assets.CephFSNodeDaemonSet), h.Node(assets.CephCSINodeDaemonSet)
	cephCSIManifest := mustRender(render, cephCSINode.Asset)
	cephCSIPodLabels := podLabels(cephCSIManifest)
	never := func() bool { return false }
	status := optionalInstanceClient{condition.Declared(c.operatorClient, cephFSInstanceConditions)}
	newInstance := func() cephfs.Instance {
		set := csicontrollerset.NewCSIControllerSet(status, recorder).
			WithStaticResourcesController(cephFSStaticResourcesController, c.kube, c.dynamic, static, render, assets.CephFSStaticResources()).
			WithConditionalStaticResourcesController(cephFSVolumeSnapshotClassController, c.kube, c.dynamic, static, render,
				[]string{assets.CephFSVolumeSnapshotClass}, crdExists, never).
			// library-go ignores the ServiceMonitor's NotFound while monitoring's CRD is absent.
			WithServiceMonitorController(cephFSServiceMonitorController, c.dynamic, render, assets.CephFSServiceMonitor).
			WithCSIDriverControllerService(cephFSControllerServiceController, render, h.ControllerAsset, c.kube,
				operandInformers, c.configInformer, slices.Clone(h.ControllerInformers), h.Controller...).
			WithCSIDriverNodeService(cephFSNodeServiceController, render, node.Asset, c.kube,
				operandInformers, slices.Clone(node.Informers), node.Hooks...)
		cephCSI := csidrivernodeservicecontroller.NewCSIDriverNodeServiceController(cephCSINodeServiceController,
			cephCSIManifest, recorder, status, c.kube, daemonSets, slices.Clone(cephCSINode.Informers), cephCSINode.Hooks...)
		pods := informers.NewSharedInformerFactoryWithOptions(c.kube, resync, informers.WithNamespace(names.OperandNamespace),
			informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = cephCSIPodLabels }))
		updates := nodeupdates.NewController(nodeupdates.Deps{
			Name: cephCSINodeUpdateController, Namespace: names.OperandNamespace, DaemonSet: string(extramounts.CephCSINodePlugin),
			Consequence:    cephCSIReplaced,
			OperatorClient: condition.Declared(c.operatorClient, cephCSINodeUpdateWrites),
			DaemonSets:     daemonSets, Revisions: pods.Apps().V1().ControllerRevisions(), Pods: pods.Core().V1().Pods(),
			Recorder: recorder,
		})
		return cephFSInstance{set: set, cephCSI: cephCSI, updates: updates, cephCSIPods: pods}
	}
	return cephfs.NewController(cephfs.Deps{
		OperatorClient:     condition.Declared(c.operatorClient, cephFSWrites),
		Config:             config,
		OperatorConfigMaps: c.operatorConfig.Core().V1().ConfigMaps(),
		PersistentVolumes:  c.kubeInformers.InformersFor("").Core().V1().PersistentVolumes(),
		SnapshotContentCRD: c.crdInformerFor(contentwatch.CRDName),
		Deployments:        operandInformers.Apps().V1().Deployments(),
		DaemonSets:         daemonSets,
		ConfigMaps:         operandInformers.Core().V1().ConfigMaps(),
		Services:           operandInformers.Core().V1().Services(),
		CSIDrivers:         c.owned.Storage().V1().CSIDrivers(),
		Kube:               c.kube,
		Dynamic:            c.dynamic,
		Recorder:           recorder,
		State:              store,
		NewInstance:        newInstance,
		InstanceConditions: cephFSInstanceConditions,
		Objects: cephfs.Objects{
			Deployments: []string{string(extramounts.CephFSControllerPlugin)},
			DaemonSets:  []string{string(extramounts.CephFSNodePlugin), string(extramounts.CephCSINodePlugin)},
			ConfigMaps:  []string{assets.ObjectName(assets.CephFSCephConfig), assets.ObjectName(assets.CephFSCephCSIConfig)},
			Services:    []string{assets.ObjectName(assets.CephFSMetricsService)},
			CSIDriver:   cephfs.DriverName, VolumeSnapshotClass: assets.ObjectName(assets.CephFSVolumeSnapshotClass),
			ServiceMonitor: assets.ObjectName(assets.CephFSServiceMonitor),
			OwnerLabel:     labels.SelectorFromSet(labels.Set{classplan.OwnerLabel: classplan.OwnerLabelValue}),
		},
	})
}

// podLabels is the selector of the DaemonSet in manifest, as a list option: its pods and its
// ControllerRevisions (which carry its template's labels) only.
func podLabels(manifest []byte) string {
	return labels.SelectorFromSet(resourceread.ReadDaemonSetV1OrDie(manifest).Spec.Selector.MatchLabels).String()
}
