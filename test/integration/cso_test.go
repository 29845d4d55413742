package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoTimeout bounds each wait on CSO: its start (informers, the FeatureGate, the leader lease) and
// one resync of the controller concerned.
const csoTimeout = 2 * time.Minute

// TestCSOAppliesManilaOperator runs the real cluster-storage-operator of each generation against the
// world and checks what a cluster on OpenStack gets from it for Manila: the operator's Deployment
// with the operator image CSO was given and the generation's arguments, (main) its config ConfigMap
// holding a GenericOperatorConfig, the ClusterCSIDriver, ClusterOperator storage with conditions, and
// the ClusterCSIDriver's Available condition copied into CSO's ManilaCSIDriverOperatorCRAvailable.
// Afterwards the world is as it was: the operator's Deployment is manifests/' again, CSO's namespace
// is gone.
func TestCSOAppliesManilaOperator(t *testing.T) {
	ours, err := manifests.Deployment()
	if err != nil {
		t.Fatal(err)
	}
	for _, gen := range []framework.CSOGeneration{framework.CSOMain, framework.CSO420, framework.CSO417} {
		t.Run(string(gen), func(t *testing.T) { testCSOAppliesManilaOperator(t, gen) })
		framework.Eventually(t, framework.DefaultTimeout, "the world as before CSO "+string(gen), func(ctx context.Context) error {
			d, err := world.Kube.AppsV1().Deployments(names.OperatorNamespace).Get(ctx, framework.CSOManilaDeployment, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got, want := d.Spec.Template.Spec.Containers[0].Image, ours.Spec.Template.Spec.Containers[0].Image; got != want {
				return fmt.Errorf("the operator Deployment has image %s, manifests/ %s", got, want)
			}
			if _, err := world.Kube.CoreV1().Namespaces().Get(ctx, framework.CSONamespace, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace %s still there (err=%v)", framework.CSONamespace, err)
			}
			if _, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("ClusterCSIDriver still there (err=%v)", err)
			}
			return nil
		})
	}
}

func testCSOAppliesManilaOperator(t *testing.T, gen framework.CSOGeneration) {
	cso := world.StartCSO(t, framework.CSOOptions{Generation: gen, OperatorImage: framework.ImageOurOperator})

	framework.Eventually(t, csoTimeout, "CSO's Manila operator Deployment", func(ctx context.Context) error {
		if exited, err := cso.Exited(); exited {
			t.Fatalf("cluster-storage-operator exited: %v", err)
		}
		d, err := world.Kube.AppsV1().Deployments(names.OperatorNamespace).Get(ctx, framework.CSOManilaDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := d.Spec.Template.Spec.Containers[0]
		if c.Image != framework.ImageOurOperator {
			return fmt.Errorf("image %s, want %s", c.Image, framework.ImageOurOperator)
		}
		want := []string{"start", "-v=2"}
		if gen == framework.CSOMain {
			want = append(want, "--config=/var/run/configmaps/config/config.yaml", "--terminate-on-files=/var/run/configmaps/config/config.yaml")
		}
		if !slices.Equal(c.Args, want) {
			return fmt.Errorf("args %q, want %q", c.Args, want)
		}
		driverImage := ""
		for _, e := range c.Env {
			if e.Name == "DRIVER_IMAGE" {
				driverImage = e.Value
			}
		}
		if want := "registry.test/openshift/csi-driver-manila:" + cso.Version; driverImage != want {
			return fmt.Errorf("DRIVER_IMAGE %q, want CSO's MANILA_DRIVER_IMAGE %q", driverImage, want)
		}
		return nil
	})

	if gen == framework.CSOMain {
		framework.Eventually(t, csoTimeout, "ConfigMap "+framework.CSOManilaConfigMap, func(ctx context.Context) error {
			cm, err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Get(ctx, framework.CSOManilaConfigMap, metav1.GetOptions{})
			if err != nil {
				return err
			}
			var cfg struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(cm.Data["config.yaml"]), &cfg); err != nil {
				return fmt.Errorf("config.yaml: %w", err)
			}
			if cfg.APIVersion != "operator.openshift.io/v1alpha1" || cfg.Kind != "GenericOperatorConfig" {
				return fmt.Errorf("config.yaml is %s %s:\n%s", cfg.APIVersion, cfg.Kind, cm.Data["config.yaml"])
			}
			return nil
		})
	}

	framework.Eventually(t, csoTimeout, "the ClusterCSIDriver CSO creates", func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.ManagementState != operatorv1.Managed {
			return fmt.Errorf("managementState %s", d.Spec.ManagementState)
		}
		return nil
	})

	framework.Eventually(t, csoTimeout, "ClusterOperator storage with conditions", func(ctx context.Context) error {
		co, err := cso.ClusterOperator(ctx)
		if err != nil {
			return err
		}
		if len(co.Status.Conditions) == 0 {
			return fmt.Errorf("no conditions")
		}
		return nil
	})

	available := framework.CSOManilaConditionPfx + "Available"
	framework.Eventually(t, csoTimeout, available+" waiting for the operator", func(ctx context.Context) error {
		c, err := cso.StorageCondition(ctx, available)
		if err != nil {
			return err
		}
		if c.Status != operatorv1.ConditionFalse || c.Reason != "WaitForOperator" {
			return fmt.Errorf("%s=%s (%s: %s), want False (WaitForOperator)", available, c.Status, c.Reason, c.Message)
		}
		return nil
	})

	// What the Manila operator reports; CSO copies its *Available conditions into its own.
	framework.Eventually(t, framework.DefaultTimeout, "FooAvailable=True on the ClusterCSIDriver", func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		v1helpers.SetOperatorCondition(&d.Status.Conditions, operatorv1.OperatorCondition{
			Type: "FooAvailable", Status: operatorv1.ConditionTrue, Reason: "AsExpected", Message: "written by the test"})
		_, err = world.Operator.OperatorV1().ClusterCSIDrivers().UpdateStatus(ctx, d, metav1.UpdateOptions{})
		return err
	})
	framework.Eventually(t, csoTimeout, available+"=True", func(ctx context.Context) error {
		c, err := cso.StorageCondition(ctx, available)
		if err != nil {
			return err
		}
		if c.Status != operatorv1.ConditionTrue {
			return fmt.Errorf("%s=%s (%s: %s)", available, c.Status, c.Reason, c.Message)
		}
		return nil
	})
	co, err := cso.ClusterOperator(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range co.Status.Conditions {
		t.Logf("ClusterOperator storage: %s=%s (%s)", c.Type, c.Status, c.Reason)
	}
}
