package integration

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/resource/resourcehash"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/runtimeconfig"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// runtimeConfigIs waits until the runtime config ConfigMap holds want, carries the operator's label,
// and the node DaemonSet's pod template carries library-go's hash of exactly that ConfigMap, with the
// driver reading it (--runtime-config-file, the mount, the optional volume). It returns the hash.
func runtimeConfigIs(t *testing.T, want string) string {
	t.Helper()
	var hash string
	framework.Eventually(t, framework.DefaultTimeout, "runtime config "+want, func(ctx context.Context) error {
		cm, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, exportlocation.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := cm.Data[exportlocation.Key]; got != want {
			return fmt.Errorf("%s is %q", exportlocation.Key, got)
		}
		if cm.Labels[classplan.OwnerLabel] != classplan.OwnerLabelValue {
			return fmt.Errorf("labels %v lack the operator's", cm.Labels)
		}
		hash, err = resourcehash.GetConfigMapHash(cm)
		return err
	})
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return readsRuntimeConfig(ds, hash)
	})
	return hash
}

func readsRuntimeConfig(ds *appsv1.DaemonSet, hash string) error {
	tmpl := ds.Spec.Template
	if !slices.ContainsFunc(slices.Collect(maps.Keys(tmpl.Annotations)), func(k string) bool {
		return strings.HasPrefix(k, "operator.openshift.io/dep-") && tmpl.Annotations[k] == hash
	}) {
		return fmt.Errorf("pod template annotations %v lack the runtime config's hash %s", tmpl.Annotations, hash)
	}
	if !slices.ContainsFunc(tmpl.Spec.Volumes, func(v corev1.Volume) bool {
		return v.ConfigMap != nil && v.ConfigMap.Name == exportlocation.ConfigMapName
	}) {
		return fmt.Errorf("no volume of ConfigMap %s", exportlocation.ConfigMapName)
	}
	for _, c := range tmpl.Spec.Containers {
		if c.Name == "csi-driver" {
			if !slices.Contains(c.Args, "--runtime-config-file="+exportlocation.MountDir+"/"+exportlocation.Key) {
				return fmt.Errorf("csi-driver args %v", c.Args)
			}
			if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == exportlocation.MountDir }) {
				return fmt.Errorf("csi-driver mounts %v", c.VolumeMounts)
			}
			return nil
		}
	}
	return fmt.Errorf("no csi-driver container")
}

// runtimeConfigStays checks, after the operator has reported a problem, that the runtime config
// keeps what it had for a few seconds more: the last good state is kept, not cleared.
func runtimeConfigStays(t *testing.T, want string) {
	t.Helper()
	framework.Consistently(t, 3*time.Second, "runtime config "+want, func(ctx context.Context) error {
		cm, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, exportlocation.ConfigMapName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := cm.Data[exportlocation.Key]; got != want {
			return fmt.Errorf("%s is %q", exportlocation.Key, got)
		}
		return nil
	})
}

func waitForConditionMessage(t *testing.T, condType string, status operatorv1.ConditionStatus, reason string, contains ...string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, condType+" "+reason, func(ctx context.Context) error {
		c := world.Condition(t, condType)
		if c == nil || c.Status != status || c.Reason != reason {
			return fmt.Errorf("%s is %+v, want %s %s", condType, c, status, reason)
		}
		for _, s := range contains {
			if !strings.Contains(c.Message, s) {
				return fmt.Errorf("%s message %q lacks %q", condType, c.Message, s)
			}
		}
		return nil
	})
}

// exportLocations.network on the real control plane, under the operator's own RBAC: unset renders
// "{}" (the driver's default); a CIDR renders the driver's matchExportLocationAddress and rolls the
// node plugin (its pod template's hash of the ConfigMap changes); an invalid CIDR or an unknown
// keyword is a config error naming the field with the last good runtime config kept; machineNetwork
// is Degraded without an install config and with a dual-stack one (runtime config kept), and follows
// a single machine network; unset again returns to "{}" and to the first hash.
func TestExportLocationNetwork(t *testing.T) {
	err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Delete(context.Background(), exportlocation.ConfigMapName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	world.DeleteInstallConfig(t)
	startOperator(t, "", framework.ShareTypeSpec{Name: "el-nfs"})

	unsetHash := runtimeConfigIs(t, `{}`)
	waitForConditionMessage(t, runtimeconfig.ConditionDegraded, operatorv1.ConditionFalse, runtimeconfig.ReasonAsExpected, "exportLocations.network is not set")

	world.WriteOperatorConfig(t, "exportLocations:\n  network: 192.168.50.0/24\n")
	cidrHash := runtimeConfigIs(t, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`)
	if cidrHash == unsetHash {
		t.Fatalf("the hash %s did not change with the runtime config", cidrHash)
	}
	waitForEvent(t, runtimeconfig.EventExportLocationNetwork, "exportLocations.network is 192.168.50.0/24")

	t.Run("an invalid CIDR is a config error naming the field; the last good runtime config stays", func(t *testing.T) {
		world.WriteOperatorConfig(t, "exportLocations:\n  network: 192.168.50.0/33\n")
		waitForConditionMessage(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue, configcheck.ReasonInvalidConfig,
			`field exportLocations.network: "192.168.50.0/33" is not a CIDR`, "the last valid configuration stays in force")
		waitForEvent(t, "InvalidOperatorConfig", "exportLocations.network")
		runtimeConfigStays(t, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`)
	})
	t.Run("an unknown keyword is a config error naming the field", func(t *testing.T) {
		world.WriteOperatorConfig(t, "exportLocations:\n  network: storageNetwork\n")
		waitForConditionMessage(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue, configcheck.ReasonInvalidConfig,
			`field exportLocations.network: "storageNetwork" is not a CIDR, an IP address or machineNetwork`)
		runtimeConfigStays(t, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`)
	})

	t.Run("machineNetwork without an install config is Degraded; the runtime config stays", func(t *testing.T) {
		world.WriteOperatorConfig(t, "exportLocations:\n  network: machineNetwork\n")
		world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
		waitForConditionMessage(t, runtimeconfig.ConditionDegraded, operatorv1.ConditionTrue, exportlocation.ReasonMachineNetworkUnknown,
			"exportLocations.network: machineNetwork", "ConfigMap kube-system/cluster-config-v1 is absent")
		runtimeConfigStays(t, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`)
	})
	t.Run("machineNetwork of a dual-stack cluster is ambiguous", func(t *testing.T) {
		world.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: 10.0.0.0/16\n  - cidr: fd00:10::/64\n"))
		waitForConditionMessage(t, runtimeconfig.ConditionDegraded, operatorv1.ConditionTrue, exportlocation.ReasonMachineNetworkAmbiguous,
			"2 machine networks (10.0.0.0/16, fd00:10::/64)")
		runtimeConfigStays(t, `{"nfs":{"matchExportLocationAddress":"192.168.50.0/24"}}`)
	})
	t.Run("machineNetwork follows the install config's machine network", func(t *testing.T) {
		world.WriteInstallConfig(t, installConfig("  machineNetwork:\n  - cidr: 10.0.0.0/16\n"))
		mnHash := runtimeConfigIs(t, `{"nfs":{"matchExportLocationAddress":"10.0.0.0/16"}}`)
		if mnHash == cidrHash {
			t.Errorf("the hash %s did not change with the runtime config", mnHash)
		}
		waitForConditionMessage(t, runtimeconfig.ConditionDegraded, operatorv1.ConditionFalse, runtimeconfig.ReasonAsExpected,
			"exportLocations.network machineNetwork is 10.0.0.0/16 (from ConfigMap kube-system/cluster-config-v1)")
		world.WriteInstallConfig(t, installConfig("  machineCIDR: 10.1.0.0/16\n"))
		runtimeConfigIs(t, `{"nfs":{"matchExportLocationAddress":"10.1.0.0/16"}}`)
	})
	t.Run("unset again is the driver's default, with the first hash", func(t *testing.T) {
		world.WriteOperatorConfig(t, "storageClasses: {}\n")
		if got := runtimeConfigIs(t, `{}`); got != unsetHash {
			t.Errorf("hash %s, want %s as before", got, unsetHash)
		}
	})
}
