// Command predecessorstandin stands in, in the test world, for OpenShift's own Manila operator as
// cluster-storage-operator runs it from its Deployment manila-csi-driver-operator, where the real one
// cannot be built (the Go module proxy refuses github.com/openshift/csi-driver-manila-operator and
// github.com/openshift/csi-operator; hack/cso.sh builds them where it can). The test framework builds
// it with -ldflags "-X main.generation=4.17" or "=4.18" (framework.BuildPredecessorStandIn).
//
// What it does as the real one does:
//   - It is a library-go controllercmd operator started as CSO starts the real one (`start -v=N`,
//     plus `--config=... --terminate-on-files=...` under CSO main), with the real component name, so
//     it leads through the same Lease in the operator namespace: csi-driver-manila-operator-lock
//     (4.17: openshift/csi-driver-manila-operator cmd/csi-driver-manila-operator/main.go, commit
//     e5927046) or openstack-manila-csi-driver-operator-lock (4.18+: openshift/csi-operator
//     cmd/openstack-manila-csi-driver-operator/main.go). It releases the Lease on SIGTERM, as
//     controllercmd does for both.
//   - Once leading and while the ClusterCSIDriver manila.csi.openstack.org is Managed, on every
//     change of it and every 30 s, it applies the controller's PodDisruptionBudget
//     openshift-manila-csi-driver/openstack-manila-csi-controllerplugin-pdb (maxUnavailable 1,
//     selector app=openstack-manila-csi, component=controllerplugin; 4.18 also
//     unhealthyPodEvictionPolicy AlwaysAllow) with library-go's ApplyPodDisruptionBudget (4.17:
//     assets/controller_pdb.yaml through its static resources controller; 4.18:
//     assets/overlays/openstack-manila/generated/standalone/controller_pdb.yaml), and writes on the
//     ClusterCSIDriver every condition the real one's controllers write once Manila has share types
//     and every operand is available: each `*Available` True, each `*Progressing` False, each
//     `*Degraded` False (see conditions below for the names, from its pkg/operator/starter.go and the
//     library-go controllers it starts), and removes the Disabled condition its Manila check sets
//     (4.17 ManilaControllerDisabled, pkg/controllers/manila/manila.go setEnabledCondition; 4.18
//     CSIControllerDisabled, pkg/operator/starter_controller.go setEnabledCondition).
//
// What it does not do: it talks to no OpenStack (it takes Manila to have share types), and applies
// nothing but the PDB: no StorageClass, CSIDriver, VolumeSnapshotClass, driver Secret, controller
// Deployment or node DaemonSets, RBAC, Service, ServiceMonitor or CA ConfigMap, so whatever another
// operator left of those stays as it is (the real one would re-apply its own versions of them). Its
// conditions are written by read-modify-write of the status (v1helpers.UpdateStatus), not by
// library-go's server-side apply with a field manager per controller, and report operands available
// whatever their state. The 4.18 StaleConditionRemovalController is not run: it is configured with
// "ManilaDriverConditionalStaticResourcesController", which is no condition type, and removes
// nothing.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	operatorclient "github.com/openshift/client-go/operator/clientset/versioned"
	operatorinformers "github.com/openshift/client-go/operator/informers/externalversions"
	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	"github.com/spf13/cobra"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-base/cli"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
)

// generation is which predecessor this binary is: "4.17" or "4.18" (set by -ldflags -X).
var generation = "4.17"

const (
	clusterCSIDriver = "manila.csi.openstack.org"
	operandNamespace = "openshift-manila-csi-driver"
	pdbName          = "openstack-manila-csi-controllerplugin-pdb"
)

// components are the controllercmd component names, and so the Lease names without "-lock".
var components = map[string]string{
	"4.17": "csi-driver-manila-operator",
	"4.18": "openstack-manila-csi-driver-operator",
}

// conditions are the owners of the conditions each generation writes once converged, with the kinds
// each owner writes (A: Available True, P: Progressing False, D: Degraded False).
//
// 4.17 (csi-driver-manila-operator e5927046, pkg/operator/starter.go): ManilaController and SecretSync
// (factory controllers with WithSyncDegradedOnError), library-go's management state controller
// (ManagementState), static resources (ManilaDriverStaticResources), conditional static resources
// (ManilaDriverConditionalStaticResourcesController), CSI config observer (ConfigObservation), the
// controller Deployment (ManilaDriverControllerServiceController), the node DaemonSets
// (ManilaDriverNodeServiceController, NFSDriverNodeServiceController), the ServiceMonitor
// (ManilaDriverServiceMonitorController) and the CA ConfigMap sync (ResourceSyncController).
//
// 4.18+ (csi-operator pkg/operator/starter.go with pkg/driver/openstack-manila, controller names
// prefixed OpenStackManila): StarterController, ManagementState, control-plane and guest static
// resources, ConfigObservation, the controller Deployment and node DaemonSet, the
// VolumeSnapshotClassController (named so by ToController, without the prefix), the NFS node
// DaemonSet (NFSDriverNodeServiceController) and the CA ConfigMap sync (ResourceSyncController).
var conditions = map[string][]struct{ owner, kinds string }{
	"4.17": {
		{"ManilaController", "D"}, {"SecretSync", "D"}, {"ManagementState", "D"},
		{"ManilaDriverStaticResources", "D"}, {"ManilaDriverConditionalStaticResourcesController", "D"},
		{"ConfigObservation", "D"},
		{"ManilaDriverControllerServiceController", "APD"}, {"ManilaDriverNodeServiceController", "APD"},
		{"NFSDriverNodeServiceController", "APD"}, {"ManilaDriverServiceMonitorController", "D"},
		{"ResourceSyncController", "D"},
	},
	"4.18": {
		{"StarterController", "D"}, {"ManagementState", "D"},
		{"OpenStackManilaDriverControlPlaneStaticResourcesController", "D"}, {"ConfigObservation", "D"},
		{"OpenStackManilaDriverControllerServiceController", "APD"},
		{"OpenStackManilaDriverGuestStaticResourcesController", "D"},
		{"OpenStackManilaDriverNodeServiceController", "APD"},
		{"VolumeSnapshotClassController", "D"},
		{"NFSDriverNodeServiceController", "APD"}, {"ResourceSyncController", "D"},
	},
}

// disabled is the condition each generation's Manila check removes once Manila has share types.
var disabled = map[string]string{"4.17": "ManilaControllerDisabled", "4.18": "CSIControllerDisabled"}

func main() {
	component, ok := components[generation]
	if !ok {
		fmt.Fprintf(os.Stderr, "predecessorstandin: unknown generation %q (build with -ldflags -X main.generation=4.17|4.18)\n", generation)
		os.Exit(2)
	}
	root := &cobra.Command{Use: component, Short: "Stand-in for OpenShift's Manila operator " + generation,
		Run: func(cmd *cobra.Command, _ []string) { _ = cmd.Help(); os.Exit(1) }}
	start := controllercmd.NewControllerCommandConfig(component, version.Info{GitVersion: "v" + generation + ".0-standin"}, run, clock.RealClock{}).
		NewCommandWithContext(context.Background())
	start.Use = "start"
	root.AddCommand(start)
	os.Exit(cli.Run(root))
}

// run is what controllercmd starts once this process leads.
func run(ctx context.Context, cc *controllercmd.ControllerContext) error {
	kube, err := kubernetes.NewForConfig(cc.KubeConfig)
	if err != nil {
		return err
	}
	ops, err := operatorclient.NewForConfig(cc.KubeConfig)
	if err != nil {
		return err
	}
	recorder := cc.EventRecorder
	if recorder == nil {
		recorder = events.NewLoggingEventRecorder(components[generation], clock.RealClock{})
	}
	factory := operatorinformers.NewSharedInformerFactoryWithOptions(ops, 10*time.Minute,
		operatorinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=" + clusterCSIDriver }))
	changed := make(chan struct{}, 1)
	kick := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := factory.Operator().V1().ClusterCSIDrivers().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: kick, UpdateFunc: func(_, o any) { kick(o) }, DeleteFunc: kick,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	klog.Infof("predecessor stand-in %s (%s) leads", generation, components[generation])
	resync := time.NewTicker(30 * time.Second)
	defer resync.Stop()
	kick(nil)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-resync.C:
		}
		if err := sync(ctx, kube, ops, recorder); err != nil {
			klog.Errorf("sync: %v", err)
			// Try again soon, as a work queue's rate limiter would.
			time.AfterFunc(time.Second, func() { kick(nil) })
		}
	}
}

// sync applies the PDB and writes the conditions, while the ClusterCSIDriver is Managed.
func sync(ctx context.Context, kube kubernetes.Interface, ops operatorclient.Interface, recorder events.Recorder) error {
	drivers := ops.OperatorV1().ClusterCSIDrivers()
	cr, err := drivers.Get(ctx, clusterCSIDriver, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cr.Spec.ManagementState != operatorv1.Managed {
		return nil
	}
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: pdbName, Namespace: operandNamespace},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "openstack-manila-csi", "component": "controllerplugin"}}},
	}
	if generation == "4.18" {
		pdb.Spec.UnhealthyPodEvictionPolicy = ptr.To(policyv1.AlwaysAllow)
	}
	if _, _, err := resourceapply.ApplyPodDisruptionBudget(ctx, kube.PolicyV1(), recorder, pdb); err != nil {
		return fmt.Errorf("applying PodDisruptionBudget %s: %w", pdbName, err)
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := drivers.Get(ctx, clusterCSIDriver, metav1.GetOptions{})
		if err != nil {
			return err
		}
		before := cr.Status.DeepCopy()
		for _, c := range conditions[generation] {
			for _, k := range c.kinds {
				cond := map[rune]operatorv1.OperatorCondition{
					'A': {Type: c.owner + "Available", Status: operatorv1.ConditionTrue, Reason: "AsExpected"},
					'P': {Type: c.owner + "Progressing", Status: operatorv1.ConditionFalse, Reason: "AsExpected"},
					'D': {Type: c.owner + "Degraded", Status: operatorv1.ConditionFalse, Reason: "AsExpected"},
				}[k]
				v1helpers.SetOperatorCondition(&cr.Status.Conditions, cond)
			}
		}
		v1helpers.RemoveOperatorCondition(&cr.Status.Conditions, disabled[generation])
		if !statusChanged(before, &cr.Status) {
			return nil
		}
		_, err = drivers.UpdateStatus(ctx, cr, metav1.UpdateOptions{})
		return err
	})
}

// statusChanged says whether the conditions differ in anything but their transition times.
func statusChanged(before, after *operatorv1.ClusterCSIDriverStatus) bool {
	if len(before.Conditions) != len(after.Conditions) {
		return true
	}
	for _, a := range after.Conditions {
		b := v1helpers.FindOperatorCondition(before.Conditions, a.Type)
		if b == nil || b.Status != a.Status || b.Reason != a.Reason || b.Message != a.Message {
			return true
		}
	}
	return false
}
