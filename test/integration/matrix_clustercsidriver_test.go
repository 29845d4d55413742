package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The ClusterCSIDriver matrix: each spec value an admin may set has its effect, or a condition naming
// it; the workloads and classes keep their state where the value says to leave them; setting the
// spec back restores everything.
func TestClusterCSIDriverSpecMatrix(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*operatorv1.ClusterCSIDriver)
		effect func(t *testing.T) // waits for what the value must bring about
	}{
		{"logLevel Debug", func(d *operatorv1.ClusterCSIDriver) { d.Spec.LogLevel = operatorv1.Debug }, eventually(driverVerbosity("4"))},
		{"logLevel TraceAll", func(d *operatorv1.ClusterCSIDriver) { d.Spec.LogLevel = operatorv1.TraceAll }, eventually(driverVerbosity("8"))},
		{"managementState Force", func(d *operatorv1.ClusterCSIDriver) { d.Spec.ManagementState = operatorv1.Force },
			eventually(conditionNames("ManagementStateDegraded", operatorv1.ConditionTrue, "Force"))},
		{"storageClassState Unmanaged", func(d *operatorv1.ClusterCSIDriver) { d.Spec.StorageClassState = operatorv1.UnmanagedStorageClass },
			configIgnoredByClass},
		{"storageClassState Removed", func(d *operatorv1.ClusterCSIDriver) { d.Spec.StorageClassState = operatorv1.RemovedStorageClass },
			eventually(classGone)},
		{"observedConfig overwritten by hand", func(d *operatorv1.ClusterCSIDriver) {
			d.Spec.ObservedConfig = runtime.RawExtension{Raw: []byte(`{"targetconfig":{"servingInfo":{"cipherSuites":["NONE"]}}}`)}
		}, eventually(observedConfigRestored)},
	}
	startOperator(t, "storageClasses:\n  defaults:\n    allowVolumeExpansion: true\n", framework.ShareTypeSpec{Name: "gold"})
	world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
	dep, node, nfs := settledWorkloads(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var saved operatorv1.ClusterCSIDriverSpec
			world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) {
				saved = *d.Spec.DeepCopy()
				tc.mutate(d)
			})
			tc.effect(t)
			world.UpdateClusterCSIDriver(t, func(d *operatorv1.ClusterCSIDriver) {
				saved.ObservedConfig = d.Spec.ObservedConfig // the observer's, not ours to restore
				d.Spec = saved
			})
			world.WaitForStorageClass(t, "csi-manila-gold", expansion(true))
			framework.Eventually(t, framework.DefaultTimeout, "the driver's verbosity back", driverVerbosity("2"))
			framework.Eventually(t, framework.DefaultTimeout, "no Degraded condition", func(ctx context.Context) error {
				d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
				if err != nil {
					return err
				}
				for _, c := range d.Status.Conditions {
					if strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue {
						return fmt.Errorf("%s: %s", c.Type, c.Message)
					}
				}
				return nil
			})
		})
	}
	d, n, f := currentWorkloads(t)
	if d.Spec.Template.Spec.Containers[0].Image != dep.Spec.Template.Spec.Containers[0].Image || n.Name != node.Name || f.Name != nfs.Name {
		t.Errorf("the workloads changed identity")
	}
}

// driverVerbosity: every container of the controller Deployment that takes --v has the level.
func driverVerbosity(level string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		dep, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return containersWithFlag(dep, "--v="+level)
	}
}

func containersWithFlag(dep *appsv1.Deployment, flag string) error {
	name := strings.SplitN(flag, "=", 2)[0] + "="
	for _, c := range dep.Spec.Template.Spec.Containers {
		has := slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, name) })
		if has && !slices.Contains(c.Args, flag) {
			return fmt.Errorf("container %s has args %v, want %s", c.Name, c.Args, flag)
		}
	}
	return nil
}

func conditionNames(condType string, status operatorv1.ConditionStatus, word string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == condType && c.Status == status && strings.Contains(c.Message, word) {
				return nil
			}
		}
		return fmt.Errorf("no %s=%s naming %q in %+v", condType, status, word, d.Status.Conditions)
	}
}

func eventually(check func(ctx context.Context) error) func(t *testing.T) {
	return func(t *testing.T) { framework.Eventually(t, framework.DefaultTimeout, "the effect", check) }
}

// configIgnoredByClass: under Unmanaged a config change does not reach the class for two polls.
func configIgnoredByClass(t *testing.T) {
	world.WriteOperatorConfig(t, "storageClasses:\n  defaults:\n    allowVolumeExpansion: false\n")
	framework.Consistently(t, 2*framework.PollInterval, "the class untouched", func(context.Context) error {
		return expansion(true)(world.WaitForStorageClass(t, "csi-manila-gold", nil))
	})
	world.WriteOperatorConfig(t, "storageClasses:\n  defaults:\n    allowVolumeExpansion: true\n")
}

func classGone(ctx context.Context) error {
	_, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-gold", metav1.GetOptions{})
	if err == nil {
		return fmt.Errorf("csi-manila-gold still exists")
	}
	return nil
}

func observedConfigRestored(ctx context.Context) error {
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if strings.Contains(string(d.Spec.ObservedConfig.Raw), "NONE") {
		return fmt.Errorf("observedConfig still holds the hand-written value")
	}
	dep, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, c := range dep.Spec.Template.Spec.Containers {
		for _, a := range c.Args {
			if strings.Contains(a, "NONE") {
				return fmt.Errorf("container %s runs with %s", c.Name, a)
			}
		}
	}
	return nil
}
