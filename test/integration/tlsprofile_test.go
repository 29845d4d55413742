package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// An APIServer `Custom` TLS profile whose ciphers all are unknown leaves kube-rbac-proxy no cipher
// suite: the controller Deployment is not applied, and the controller service's Degraded says why,
// naming the APIServer's tlsSecurityProfile, instead of nothing happening. Back to the default
// profile, the Deployment is applied and Degraded clears.
func TestOperandCustomTLSProfileWithoutKnownCiphers(t *testing.T) {
	const degraded = "ManilaDriverControllerServiceControllerDegraded"
	setTLSProfile(t, &configv1.TLSSecurityProfile{Type: configv1.TLSProfileCustomType, Custom: &configv1.CustomTLSProfile{
		TLSProfileSpec: configv1.TLSProfileSpec{Ciphers: []string{"NO-SUCH-CIPHER"}, MinTLSVersion: configv1.VersionTLS12}}})
	t.Cleanup(func() { setTLSProfile(t, nil) })
	startOperator(t, "", framework.ShareTypeSpec{Name: "gold"})
	framework.Eventually(t, framework.DefaultTimeout, degraded+" naming the tlsSecurityProfile", func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == degraded && c.Status == operatorv1.ConditionTrue && strings.Contains(c.Message, "spec.tlsSecurityProfile") {
				return nil
			}
		}
		return fmt.Errorf("conditions %v", d.Status.Conditions)
	})
	if _, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(context.Background(), framework.ControllerDeployment, metav1.GetOptions{}); err == nil {
		t.Errorf("the controller Deployment was applied with no cipher suite")
	}

	setTLSProfile(t, nil)
	world.WaitForDeployment(t, nil)
	world.WaitForCondition(t, degraded, operatorv1.ConditionFalse)
}

func setTLSProfile(t *testing.T, profile *configv1.TLSSecurityProfile) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "APIServer cluster's tlsSecurityProfile", func(ctx context.Context) error {
		api, err := world.ConfigV1.ConfigV1().APIServers().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		api.Spec.TLSSecurityProfile = profile
		_, err = world.ConfigV1.ConfigV1().APIServers().Update(ctx, api, metav1.UpdateOptions{})
		return err
	})
}
