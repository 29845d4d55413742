package render

import (
	"bytes"
	"fmt"
	"strconv"

	configv1 "github.com/openshift/api/config/v1"
	opv1 "github.com/openshift/api/operator/v1"
	configinformers "github.com/openshift/client-go/config/informers/externalversions"
	"github.com/openshift/library-go/pkg/config/leaderelection"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivercontrollerservicecontroller"
	"github.com/openshift/library-go/pkg/operator/csi/csidrivernodeservicecontroller"
	dc "github.com/openshift/library-go/pkg/operator/deploymentcontroller"
	"github.com/openshift/library-go/pkg/operator/loglevel"
	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// The chains below are library-go's, in its order: csidrivercontrollerservicecontroller's
// NewCSIDriverControllerServiceController with deploymentcontroller's getDeployment, and
// csidrivernodeservicecontroller's getDaemonSet, whose own steps are not exported. Then the operator's
// hooks (operator.NewWorkloadHooks), and the spec hash resourceapply adds when it applies.
// TestWorkloadsMatchLibraryGo runs library-go's real controllers to keep these in step.

func controllerDeployment(manifest []byte, spec *opv1.OperatorSpec, config configinformers.SharedInformerFactory, hooks []dc.DeploymentHookFunc) (*appsv1.Deployment, error) {
	manifestHooks := []dc.ManifestHookFunc{
		csidrivercontrollerservicecontroller.WithPlaceholdersHook(config),
		csidrivercontrollerservicecontroller.WithServingInfo(),
		csidrivercontrollerservicecontroller.WithLeaderElectionReplacerHook(leaderelection.LeaderElectionDefaulting(configv1.LeaderElection{}, "default", "default")),
	}
	for i, hook := range manifestHooks {
		var err error
		if manifest, err = hook(spec, manifest); err != nil {
			return nil, fmt.Errorf("controller Deployment: manifest hook %d: %w", i, err)
		}
	}
	d := resourceread.ReadDeploymentV1OrDie(manifest)
	all := append([]dc.DeploymentHookFunc{csidrivercontrollerservicecontroller.WithControlPlaneTopologyHook(config)}, hooks...)
	for i, hook := range all {
		if err := hook(spec, d); err != nil {
			return nil, fmt.Errorf("Deployment %s: hook %d: %w", d.Name, i, err)
		}
	}
	return d, resourceapply.SetSpecHashAnnotation(&d.ObjectMeta, d.Spec)
}

func nodeDaemonSet(manifest []byte, spec *opv1.OperatorSpec, hooks []csidrivernodeservicecontroller.DaemonSetHookFunc) (*appsv1.DaemonSet, error) {
	// library-go's replacePlaceholders: the images are already in (assets.Vars), the log level here.
	manifest = bytes.ReplaceAll(manifest, []byte("${LOG_LEVEL}"), []byte(strconv.Itoa(loglevel.LogLevelToVerbosity(spec.LogLevel))))
	manifest, err := csidrivercontrollerservicecontroller.WithServingInfo()(spec, manifest)
	if err != nil {
		return nil, err
	}
	ds := resourceread.ReadDaemonSetV1OrDie(manifest)
	for i, hook := range hooks {
		if err := hook(spec, ds); err != nil {
			return nil, fmt.Errorf("DaemonSet %s: hook %d: %w", ds.Name, i, err)
		}
	}
	return ds, resourceapply.SetSpecHashAnnotation(&ds.ObjectMeta, ds.Spec)
}

// cephFSObjects renders the CephFS instance (operator config cephfs.enabled, standalone) as the
// operator applies it: its static objects, snapshot class and ServiceMonitor, and its three workloads through the
// hooks start uses (operator.CephFSWorkloadHooks), the ceph-csi image from the config.
func cephFSObjects(render func(string) ([]byte, error), in operator.WorkloadInputs, source *operatorconfig.Source,
	spec *opv1.OperatorSpec, config configinformers.SharedInformerFactory) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, name := range append(assets.CephFSStaticResources(), assets.CephFSVolumeSnapshotClass, assets.CephFSServiceMonitor) {
		obj, err := staticAsset(render, name)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	h := operator.CephFSWorkloadHooks(in, hooks.CephCSIImage{Config: source})
	manifest, err := render(h.ControllerAsset)
	if err != nil {
		return nil, err
	}
	d, err := controllerDeployment(manifest, spec, config, h.Controller)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.ControllerAsset, err)
	}
	d.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
	out = append(out, d)
	daemonSets, err := nodeDaemonSets(render, spec, h.Nodes)
	if err != nil {
		return nil, err
	}
	out = append(out, daemonSets...)
	return out, nil
}

// nodeDaemonSets renders each DaemonSet of an instance through its hooks, in the instance's order.
func nodeDaemonSets(render func(string) ([]byte, error), spec *opv1.OperatorSpec, nodes []operator.NodeHooks) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, node := range nodes {
		manifest, err := render(node.Asset)
		if err != nil {
			return nil, err
		}
		ds, err := nodeDaemonSet(manifest, spec, node.Hooks)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", node.Asset, err)
		}
		ds.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
		out = append(out, ds)
	}
	return out, nil
}
