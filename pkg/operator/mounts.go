package operator

import (
	"fmt"
	"strings"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// caBundleContainersAnnotation names the containers library-go's CA-bundle hooks mount the cluster's
// trusted CA into.
const caBundleContainersAnnotation = "config.openshift.io/inject-proxy-cabundle"

var workloadAssets = map[extramounts.PropagationType]string{
	extramounts.ControllerPlugin: assets.ControllerDeployment,
	extramounts.NodePlugin:       assets.NodeDaemonSet,
	extramounts.NFSNodePlugin:    assets.NFSNodeDaemonSet,

	extramounts.CephFSControllerPlugin: assets.CephFSControllerDeployment,
	extramounts.CephFSNodePlugin:       assets.CephFSNodeDaemonSet,
	extramounts.CephCSINodePlugin:      assets.CephCSINodeDaemonSet,
}

// cephFSTargets are the CephFS instance's workloads, checked only while cephfs.enabled: an admin's
// entry for the Node group that was valid before CephFS existed (one at /etc/ceph, say) stays valid
// until CephFS is turned on with it.
var cephFSTargets = map[extramounts.PropagationType]bool{
	extramounts.CephFSControllerPlugin: true, extramounts.CephFSNodePlugin: true, extramounts.CephCSINodePlugin: true,
}

// mountsValidator checks a configuration's extraMounts against every workload as the hook chain
// renders it at its fullest: library-go's trusted-CA injection in place (as once the network operator
// has filled the ConfigMap, which on a cluster it always does) and the built-in entries applied. So an
// entry that would break a workload now or later makes the whole configuration invalid, is reported by
// entry and field, and the last valid one stays in force; the hooks never fail on a mount.
func mountsValidator(render resourceapply.AssetFunc) (func(*operatorconfig.Config) error, error) {
	specs := map[extramounts.PropagationType]corev1.PodSpec{}
	for target, asset := range workloadAssets {
		data, err := render(asset)
		if err != nil {
			return nil, err
		}
		var obj struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("asset %s: %w", asset, err)
		}
		spec := obj.Spec.Template.Spec
		if !storageProtocolsOnly[target] {
			containers := strings.Split(obj.Metadata.Annotations[caBundleContainersAnnotation], ",")
			if err := v1helpers.InjectTrustedCAIntoContainers(&spec, hooks.TrustedCAConfigMap, containers); err != nil {
				return nil, err
			}
		}
		specs[target] = spec
	}
	return func(cfg *operatorconfig.Config) error {
		entries := append(hooks.BuiltinMounts(true), cfg.MountEntries()...)
		for _, target := range extramounts.Targets {
			if cephFSTargets[target.Name] && !cfg.CephFS.Enabled {
				continue // not rendered: an entry may keep reaching a group the CephFS workloads join when on
			}
			spec := specs[target.Name]
			if err := extramounts.Apply(spec.DeepCopy(), target, entries); err != nil {
				return fmt.Errorf("ConfigMap %s key %s: %w", operatorconfig.ConfigMapName, operatorconfig.Key, err)
			}
		}
		return nil
	}, nil
}

// ConfigValidator is the check the operator applies to its configuration beyond operatorconfig.Parse
// (extraMounts against the workloads), for commands that run without a cluster: the operand images
// are left empty, as they do not change the volumes and mounts checked.
func ConfigValidator() (func(*operatorconfig.Config) error, error) {
	return mountsValidator(assets.Vars{}.AssetFunc())
}
