package operator

import (
	"fmt"

	"github.com/openshift/library-go/pkg/operator/resource/resourceapply"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/extramounts"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/hooks"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

var workloadAssets = map[extramounts.PropagationType]string{
	extramounts.ControllerPlugin: assets.ControllerDeployment,
	extramounts.NodePlugin:       assets.NodeDaemonSet,
	extramounts.NFSNodePlugin:    assets.NFSNodeDaemonSet,
}

// mountsValidator checks a configuration's extraMounts against every workload as rendered, with the
// built-in entries in place, so an entry that would break a workload makes the whole configuration
// invalid and the last valid one stays in force.
func mountsValidator(render resourceapply.AssetFunc) (func(*operatorconfig.Config) error, error) {
	specs := map[extramounts.PropagationType]corev1.PodSpec{}
	for target, asset := range workloadAssets {
		data, err := render(asset)
		if err != nil {
			return nil, err
		}
		var obj struct {
			Spec struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("asset %s: %w", asset, err)
		}
		specs[target] = obj.Spec.Template.Spec
	}
	return func(cfg *operatorconfig.Config) error {
		entries := append(hooks.BuiltinMounts(true), cfg.MountEntries()...)
		for _, target := range extramounts.Targets {
			spec := specs[target.Name]
			if err := extramounts.Apply(spec.DeepCopy(), target, entries); err != nil {
				return fmt.Errorf("ConfigMap %s key %s: %w", operatorconfig.ConfigMapName, operatorconfig.Key, err)
			}
		}
		return nil
	}, nil
}
