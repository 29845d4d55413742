package cephfs

import (
	"context"
	"errors"
	"sync"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	apiextv1informers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	appsv1informers "k8s.io/client-go/informers/apps/v1"
	corev1informers "k8s.io/client-go/informers/core/v1"
	storagev1informers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/contentwatch"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/managementstate"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// ControllerName prefixes the controller's conditions.
const ControllerName = "CephFSController"

// ConditionRetained is True while cephfs.enabled is false but volumes keep the instance running. It is
// neither Degraded nor Progressing: the cluster is as the admin left it, and waits for the volumes.
const ConditionRetained = ControllerName + "Retained"

// ConditionTypes are the condition types the controller writes: Retained, and the Degraded library-go's
// factory writes for it (WithSyncDegradedOnError).
func ConditionTypes() []string {
	return append([]string{ConditionRetained}, conditiontypes.Degraded(ControllerName)...)
}

// Reasons of ConditionRetained.
const (
	ReasonVolumesInUse   = "VolumesInUse"
	ReasonSnapshotsInUse = "SnapshotsInUse"
	ReasonAsExpected     = "AsExpected"
)

// Events.
const (
	EventRetained = "CephFSRetained"
	EventRemoved  = "CephFSRemoved"
)

// Instance is one run of the CephFS instance's library-go controllers: Start runs them until ctx ends.
type Instance interface {
	Start(ctx context.Context)
}

// Objects name what the instance applies, for its removal. The workloads, ConfigMaps, Services and
// the ServiceMonitor are in the operand namespace; the CSIDriver and the VolumeSnapshotClass are
// deleted only while they carry the operator's owner label. The metrics Service's serving-cert Secret
// is service-ca's, owned by the Service: the garbage collector deletes it with the Service.
type Objects struct {
	Deployments, DaemonSets, ConfigMaps, Services  []string
	CSIDriver, VolumeSnapshotClass, ServiceMonitor string
	OwnerLabel                                     labels.Selector
}

// Deps are the Controller's collaborators. Informers: OperatorConfigMaps in the operator namespace;
// Deployments, DaemonSets, ConfigMaps and Services in the operand namespace; CSIDrivers of the
// operator's owned objects; SnapshotContentCRD of contentwatch.CRDName only.
type Deps struct {
	OperatorClient     condition.OperatorClient
	Config             *operatorconfig.Source
	OperatorConfigMaps corev1informers.ConfigMapInformer
	PersistentVolumes  corev1informers.PersistentVolumeInformer
	SnapshotContentCRD apiextv1informers.CustomResourceDefinitionInformer
	Deployments        appsv1informers.DeploymentInformer
	DaemonSets         appsv1informers.DaemonSetInformer
	ConfigMaps         corev1informers.ConfigMapInformer
	Services           corev1informers.ServiceInformer
	CSIDrivers         storagev1informers.CSIDriverInformer
	Kube               kubernetes.Interface
	// Dynamic deletes the VolumeSnapshotClass and the ServiceMonitor, and lists and watches the
	// cluster's VolumeSnapshotContents while the instance is being retired (contentwatch).
	Dynamic  dynamic.Interface
	Recorder events.Recorder
	// State keeps the ceph-csi image in force (state.CephCSIImageKey), for a turned-off instance that
	// volumes keep running once the config names no image.
	State interface {
		Set(ctx context.Context, key, value string) error
	}
	// NewInstance builds a fresh run of the instance's controllers; InstanceConditions are the
	// condition types they write, removed once the instance stops.
	NewInstance        func() Instance
	InstanceConditions conditiontypes.Set
	Objects            Objects
}

// Controller runs the CephFS instance (cephfs.manila.csi.openstack.org, its controller Deployment,
// its node DaemonSet and ceph-csi's CephFS node DaemonSet, their ConfigMaps, CSIDriver,
// VolumeSnapshotClass, and the controller's metrics Service and ServiceMonitor) through a second set
// of library-go controllers, which it starts and stops.
//
// Watches: the operator config, PersistentVolumes, the instance's objects, the ClusterCSIDriver, the
// VolumeSnapshotContent CRD, and VolumeSnapshotContents only while a turned-off instance that no
// volume keeps is being retired (contentwatch: started then, dropped once it is removed or on again).
//
// Writes: while the instance runs, the ceph-csi image in force to the state ConfigMap (its own
// controllers apply it and report as ManilaCephFSDriver*/CephCSIDriver* conditions); on removal, deletes its objects and the stopped
// controllers' conditions; condition CephFSControllerRetained; events CephFSRetained, CephFSRemoved.
//
// Policy: cephfs.enabled (last valid operator config) runs the instance. Turned off, it keeps running
// while any PersistentVolume of its driver exists (pods must still unmount, shares be deleted), then
// while any VolumeSnapshotContent of its driver needs its csi-snapshotter (deletionPolicy Delete, or
// the snapshotter's finalizer on it: only it lifts that; a Retain content without it keeps nothing),
// named by CephFSControllerRetained; then it stops and its objects are deleted (Decide). It does
// nothing while the ClusterCSIDriver is not Managed, checked again before each delete (what is left
// once the admin sets Unmanaged is theirs): a running instance's library-go controllers honour that
// themselves.
type Controller struct {
	d        Deps
	contents contentSource
	mu       sync.Mutex
	stop     context.CancelFunc
	retained string
}

// contentSource lists the VolumeSnapshotContents of the driver (contentwatch.Watch, which caches the
// cluster's contents only between Of and Release).
type contentSource interface {
	Of(ctx context.Context) (names []string, known bool)
	Release()
}

// NewController returns the factory controller. The instance runs until the controller's own Run
// ends (factory passes Run's context to every sync).
func NewController(d Deps) factory.Controller {
	c := &Controller{d: d}
	recorder := d.Recorder.WithComponentSuffix("cephfs")
	syncCtx := factory.NewSyncContext(ControllerName, recorder)
	c.contents = contentwatch.New(d.Dynamic, DriverName, func() { syncCtx.Queue().Add(factory.DefaultQueueKey) })
	return factory.New().
		WithSyncContext(syncCtx).
		WithSync(requeueWhenContended(c.sync)).
		WithSyncDegradedOnError(d.OperatorClient).
		WithInformers(d.OperatorClient.Informer(), d.OperatorConfigMaps.Informer(),
			d.Deployments.Informer(), d.DaemonSets.Informer(), d.ConfigMaps.Informer(), d.Services.Informer(), d.CSIDrivers.Informer(),
			d.SnapshotContentCRD.Informer()).
		// Of the cluster's volumes, only the CephFS driver's keep the instance: the others' events
		// (every volume of a big cluster) start no sync.
		WithFilteredEventsInformers(isCephFSVolume, d.PersistentVolumes.Informer()).
		ResyncEvery(time.Minute).
		ToController(ControllerName, recorder)
}

// requeueWhenContended keeps a lost write race out of the factory's Degraded (WithSyncDegradedOnError
// marks every error returned): a status or state write that still conflicted after its retries (many
// writers at once, e.g. at the operator's start on a loaded API server) is synced again, rate limited,
// and reported only if it is something else.
func requeueWhenContended(sync factory.SyncFunc) factory.SyncFunc {
	return func(ctx context.Context, syncCtx factory.SyncContext) error {
		err := sync(ctx, syncCtx)
		if err != nil && condition.Contended(err) {
			klog.V(2).Infof("%s: a write lost its race with other writers; syncing again", ControllerName)
			syncCtx.Queue().AddRateLimited(syncCtx.QueueKey())
			return nil
		}
		return err
	}
}

func (c *Controller) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	if managed, err := managementstate.Managed(c.d.OperatorClient); err != nil || !managed {
		return err
	}
	enabled, image := false, ""
	if cfg, _ := c.d.Config.Current(); cfg != nil {
		enabled, image = cfg.CephFS.Enabled, cfg.CephFS.Image
	}
	pvs, err := c.d.PersistentVolumes.Lister().List(labels.Everything())
	if err != nil {
		return err
	}
	in := Inputs{Enabled: enabled, PVs: pvs, Left: c.running() || len(c.leftovers(ctx)) > 0}
	if NeedsContents(in) {
		in.Contents, in.ContentsKnown = c.snapshotContents(ctx)
	} else {
		c.contents.Release()
	}
	plan := Decide(in)
	if plan.Wait {
		klog.V(2).Infof("CephFS instance: waiting for the list of VolumeSnapshotContents before removing it")
		return nil // the watch calls back once its list is in
	}
	if plan.Run && image != "" {
		// Before the instance runs with it: the cache answers when it is already recorded.
		if err := c.d.State.Set(ctx, state.CephCSIImageKey, image); err != nil {
			return err
		}
	}
	if plan.Run {
		c.start(ctx)
	}
	if err := c.reportRetained(ctx, plan, syncCtx.Recorder()); err != nil {
		return err
	}
	if !plan.Remove {
		return nil
	}
	c.halt()
	if err := c.removeConditions(ctx); err != nil {
		return err
	}
	// As the caches show them after the halt: the stopped controllers apply nothing more.
	if err := c.removeObjects(ctx, c.leftovers(ctx), syncCtx.Recorder()); errors.Is(err, managementstate.ErrNotManaged) {
		return nil // set Unmanaged or Removed since the sync began: what is left is the admin's now
	} else if err != nil {
		return err
	}
	c.contents.Release()
	return nil
}

// snapshotContents returns the names of the VolumeSnapshotContents of the driver; without their CRD
// there are none (and nothing to watch: a watch of a missing resource would never fill).
func (c *Controller) snapshotContents(ctx context.Context) (names []string, known bool) {
	if _, err := c.d.SnapshotContentCRD.Lister().Get(contentwatch.CRDName); err != nil {
		c.contents.Release()
		return nil, true
	}
	return c.contents.Of(ctx)
}

func (c *Controller) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stop != nil
}

func (c *Controller) start(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		return
	}
	run, stop := context.WithCancel(ctx)
	c.stop = stop
	klog.Infof("Starting the CephFS instance of the Manila CSI driver (%s)", DriverName)
	c.d.NewInstance().Start(run)
}

func (c *Controller) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop == nil {
		return
	}
	klog.Infof("Stopping the CephFS instance of the Manila CSI driver: cephfs.enabled is false and no volume or snapshot of it is left")
	c.stop()
	c.stop = nil
}

func (c *Controller) reportRetained(ctx context.Context, plan Plan, recorder events.Recorder) error {
	retained := plan.Retained
	cond := operatorv1.OperatorCondition{Type: ConditionRetained, Status: operatorv1.ConditionFalse, Reason: ReasonAsExpected}
	if retained != "" {
		cond = operatorv1.OperatorCondition{Type: ConditionRetained, Status: operatorv1.ConditionTrue, Reason: plan.Reason, Message: "cephfs.enabled is false, but the CephFS instance keeps running while " +
			retained + " exist; it is removed once they are deleted"}
		if retained != c.retained {
			recorder.Warningf(EventRetained, "The CephFS instance stays while %s exist (cephfs.enabled is false in ConfigMap %s)", retained, operatorconfig.ConfigMapName)
		}
	}
	c.retained = retained
	_, err := condition.Update(ctx, c.d.OperatorClient, condition.Set(cond))
	return err
}

// removeConditions removes the conditions of the stopped instance's controllers: nobody would update
// them again, and cluster-storage-operator would read a last Degraded or Progressing for good.
func (c *Controller) removeConditions(ctx context.Context) error {
	_, err := condition.Update(ctx, c.d.OperatorClient, condition.RemoveWhere(func(conds []operatorv1.OperatorCondition) []string {
		var stale []string
		for _, cond := range conds {
			if c.d.InstanceConditions.Has(cond.Type) {
				stale = append(stale, cond.Type)
			}
		}
		return stale
	}, nil))
	return err
}

var (
	volumeSnapshotClasses = schema.GroupVersionResource{Group: "snapshot.storage.k8s.io", Version: "v1", Resource: "volumesnapshotclasses"}
	serviceMonitors       = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "servicemonitors"}
)

// leftovers returns a deletion for each object the instance applied that the caches show. The
// VolumeSnapshotClass and the ServiceMonitor, which no cache here holds, are not among them
// (removeObjects).
func (c *Controller) leftovers(ctx context.Context) []func() error {
	o, ns := c.d.Objects, names.OperandNamespace
	var present []func() error
	for _, name := range o.Deployments {
		if _, err := c.d.Deployments.Lister().Deployments(ns).Get(name); err == nil {
			present = append(present, func() error {
				return c.d.Kube.AppsV1().Deployments(ns).Delete(ctx, name, metav1.DeleteOptions{})
			})
		}
	}
	for _, name := range o.DaemonSets {
		if _, err := c.d.DaemonSets.Lister().DaemonSets(ns).Get(name); err == nil {
			present = append(present, func() error {
				return c.d.Kube.AppsV1().DaemonSets(ns).Delete(ctx, name, metav1.DeleteOptions{})
			})
		}
	}
	for _, name := range o.ConfigMaps {
		if _, err := c.d.ConfigMaps.Lister().ConfigMaps(ns).Get(name); err == nil {
			present = append(present, func() error {
				return c.d.Kube.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
			})
		}
	}
	for _, name := range o.Services {
		if _, err := c.d.Services.Lister().Services(ns).Get(name); err == nil {
			present = append(present, func() error {
				return c.d.Kube.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{})
			})
		}
	}
	if d, err := c.d.CSIDrivers.Lister().Get(o.CSIDriver); err == nil && o.OwnerLabel.Matches(labels.Set(d.Labels)) {
		present = append(present, func() error {
			return c.d.Kube.StorageV1().CSIDrivers().Delete(ctx, o.CSIDriver, metav1.DeleteOptions{})
		})
	}
	return present
}

// removeObjects deletes what the instance applied (present, from leftovers): nothing is requested
// when nothing is left. The VolumeSnapshotClass and the ServiceMonitor go first, while the others show
// that a removal is under way. Each delete is sent only while the ClusterCSIDriver is still Managed
// (managementstate.ErrNotManaged otherwise).
func (c *Controller) removeObjects(ctx context.Context, present []func() error, recorder events.Recorder) error {
	if len(present) == 0 {
		return nil
	}
	deletes := append([]func() error{func() error { return c.deleteSnapshotClass(ctx) }, func() error { return c.deleteServiceMonitor(ctx) }}, present...)
	for _, del := range deletes {
		if err := managementstate.StillManaged(c.d.OperatorClient); err != nil {
			return err
		}
		if err := del(); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	recorder.Eventf(EventRemoved, "Removed the CephFS instance of the Manila CSI driver (%s): cephfs.enabled is false and no volume or snapshot of it is left", DriverName)
	return nil
}

func (c *Controller) deleteSnapshotClass(ctx context.Context) error {
	if c.d.Objects.VolumeSnapshotClass == "" {
		return nil
	}
	vsc, err := c.d.Dynamic.Resource(volumeSnapshotClasses).Get(ctx, c.d.Objects.VolumeSnapshotClass, metav1.GetOptions{})
	if apierrors.IsNotFound(err) { // also without the snapshot CRD
		return nil
	}
	if err != nil {
		return err
	}
	if !c.d.Objects.OwnerLabel.Matches(labels.Set(vsc.GetLabels())) {
		return nil
	}
	err = c.d.Dynamic.Resource(volumeSnapshotClasses).Delete(ctx, vsc.GetName(), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// deleteServiceMonitor deletes the instance's ServiceMonitor; without monitoring's CRD there is none.
func (c *Controller) deleteServiceMonitor(ctx context.Context) error {
	if c.d.Objects.ServiceMonitor == "" {
		return nil
	}
	err := c.d.Dynamic.Resource(serviceMonitors).Namespace(names.OperandNamespace).Delete(ctx, c.d.Objects.ServiceMonitor, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
