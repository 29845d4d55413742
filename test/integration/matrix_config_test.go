package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The operator-config matrix, extraMounts included: each bad config is reported with the field path,
// the classes and the workloads keep the last valid config, and the good config is valid again.
func TestOperatorConfigMatrix(t *testing.T) {
	const good = "storageClasses:\n  defaults:\n    allowVolumeExpansion: false\n" + mountsConfig
	mount := func(entry string) string {
		return good + "controllerPlugin:\n  extraMounts:\n  - " + strings.ReplaceAll(strings.TrimSpace(entry), "\n", "\n    ") + "\n"
	}
	cases := []struct{ name, config, path string }{
		{"unknown top-level key", good + "surprise: 1\n", "surprise"},
		{"unknown nested key", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: false\n    shareNetworkId: x", 1), "storageClasses.defaults.shareNetworkId"},
		{"wrong type", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: sometimes", 1), "allowVolumeExpansion"},
		{"pollInterval not a duration", good + "pollInterval: soon\n", "pollInterval"},
		{"pollInterval below the minimum", good + "pollInterval: 1s\n", "pollInterval"},
		{"negative pruneAfterListings", strings.Replace(good, "defaults:", "pruneAfterListings: -2\n  defaults:", 1), "pruneAfterListings"},
		{"reclaimPolicy out of range", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: false\n    reclaimPolicy: Recycle", 1), "reclaimPolicy"},
		{"volumeBindingMode out of range", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: false\n    volumeBindingMode: Later", 1), "volumeBindingMode"},
		{"nfs-shareClient machineNetwork misspelt", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: false\n    nfs-shareClient: 10.0.0.0/8,machine-network", 1), "nfs-shareClient"},
		{"nfs-shareClient not an address", strings.Replace(good, "allowVolumeExpansion: false", "allowVolumeExpansion: false\n    nfs-shareClient: everyone", 1), "nfs-shareClient"},
		{"an alias bomb", "pad: &p [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nmore: [" + strings.Repeat("*p,", 300) + "*p]\n", "(document)"},
		{"not YAML", "storageClasses: [\n", "(document)"},
		{"extraMounts: a duplicate volume name", mount("volumes: [{name: socket-dir, emptyDir: {}}]\nmounts: [{name: socket-dir, mountPath: /x}]"), "volumes[0].name"},
		{"extraMounts: a volume name that is not a DNS label", mount("volumes: [{name: My_Vol, emptyDir: {}}]\nmounts: [{name: My_Vol, mountPath: /x}]"), "volumes[0].name"},
		{"extraMounts: a built-in path", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: /plugin}]"), "mounts[0].mountPath"},
		{"extraMounts: a built-in path with a trailing slash", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: /plugin/}]"), "mounts[0].mountPath"},
		{"extraMounts: the trusted-CA path", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: /etc/pki/ca-trust/extracted/pem}]"), "mounts[0].mountPath"},
		{"extraMounts: a relative path", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: etc/v}]"), "mounts[0].mountPath"},
		{"extraMounts: a subPath climbing out", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: /v, subPath: ../../etc}]"), "mounts[0].subPath"},
		{"extraMounts: an unknown volume", mount("volumes: [{name: v, emptyDir: {}}]\nmounts: [{name: w, mountPath: /v}]"), "mounts[0].name"},
		{"extraMounts: an unknown container", mount("containers: [ghost]\nvolumes: [{name: v, emptyDir: {}}]\nmounts: [{name: v, mountPath: /v}]"), "containers[0]"},
		{"extraMounts: an unknown target", strings.Replace(good, "propagation: [openstack-manila-csi-nodeplugin]", "propagation: [Workers]", 1), "propagation[0]"},
	}
	startOperator(t, good, framework.ShareTypeSpec{Name: "gold"})
	world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(false))
	dep, node, nfs := settledWorkloads(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			world.WriteOperatorConfig(t, tc.config)
			framework.Eventually(t, framework.DefaultTimeout, "a condition naming "+tc.path, func(context.Context) error {
				c := world.Condition(t, configcheck.ConditionDegraded)
				if c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, tc.path) {
					return fmt.Errorf("OperatorConfigControllerDegraded is %+v", c)
				}
				return nil
			})
			framework.Consistently(t, time.Second, "classes and workloads keep the last valid config", func(ctx context.Context) error {
				if err := expansion(false)(world.WaitForStorageClass(t, "csi-manila-gold", nil)); err != nil {
					return err
				}
				d, n, f := currentWorkloads(t)
				if d.Generation != dep.Generation || n.Generation != node.Generation || f.Generation != nfs.Generation {
					return fmt.Errorf("a workload changed under an invalid config")
				}
				return nil
			})
			world.WriteOperatorConfig(t, good)
			world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
		})
	}
}
