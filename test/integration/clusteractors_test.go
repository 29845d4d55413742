package integration

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const trustedCAPath = "/etc/pki/ca-trust/extracted/pem"

// mountsAt lists the container's mounts at path.
func mountsAt(spec corev1.PodSpec, container, path string) []string {
	var out []string
	for _, c := range spec.Containers {
		if c.Name == container {
			for _, m := range c.VolumeMounts {
				if m.MountPath == path {
					out = append(out, m.Name)
				}
			}
		}
	}
	return out
}

// As on OpenShift, the network operator fills the operand's trusted-CA ConfigMap: the controller
// Deployment is still created and re-created, with exactly one mount of that bundle in the driver.
// An admin entry at the same path is invalid config naming the entry, never a stuck Deployment.
// The metrics serving cert comes from service-ca, signed by its CA, and its hash rolls the pods.
func TestClusterActorsTrustedCAAndServingCert(t *testing.T) {
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	framework.Eventually(t, framework.DefaultTimeout, "the injected trusted CA bundle", func(ctx context.Context) error {
		cm, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, "manila-csi-driver-trusted-ca-bundle", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data["ca-bundle.crt"] != string(world.TrustedCABundle) {
			return fmt.Errorf("ca-bundle.crt holds %d bytes, not the cluster's bundle", len(cm.Data["ca-bundle.crt"]))
		}
		return nil
	})
	oneCAMount := func(d *appsv1.Deployment) error {
		if got := mountsAt(d.Spec.Template.Spec, "csi-driver", trustedCAPath); len(got) != 1 {
			return fmt.Errorf("csi-driver mounts at %s: %v, want exactly one", trustedCAPath, got)
		}
		return nil
	}
	first := world.WaitForDeployment(t, oneCAMount)
	if err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Delete(context.Background(), first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		if d.UID == first.UID {
			return fmt.Errorf("not re-created yet")
		}
		return oneCAMount(d)
	})
	world.WaitForCondition(t, "ManilaDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)

	world.WriteOperatorConfig(t, `
controllerPlugin:
  extraMounts:
  - volumes: [{name: my-ca, configMap: {name: my-ca}}]
    mounts: [{name: my-ca, mountPath: `+trustedCAPath+`}]
`)
	cond := world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "controllerPlugin.extraMounts[0]") || !strings.Contains(cond.Message, trustedCAPath) {
		t.Errorf("condition %q does not name the entry and the path", cond.Message)
	}
	second := world.WaitForDeployment(t, nil)
	if err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Delete(context.Background(), second.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		if d.UID == second.UID {
			return fmt.Errorf("not re-created yet")
		}
		return oneCAMount(d)
	})

	secret, err := world.Kube.CoreV1().Secrets(names.OperandNamespace).Get(context.Background(), framework.MetricsServingCertSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(secret.Data["tls.crt"])
	if block == nil {
		t.Fatalf("tls.crt of %s is not PEM", secret.Name)
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if world.ServiceCA.Issued() == 0 || world.TrustedCA.Injected() == 0 {
		t.Errorf("the cluster's actors did not act: %d serving certs issued, %d bundles injected", world.ServiceCA.Issued(), world.TrustedCA.Injected())
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(world.ServiceCA.CAPEM)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "manila-csi-driver-controller-metrics." + names.OperandNamespace + ".svc"}); err != nil {
		t.Errorf("the metrics serving cert does not verify against service-ca: %v", err)
	}
}
