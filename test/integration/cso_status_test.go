package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The real cluster-storage-operator reads this operator's status on the clouds where OpenShift's own
// Manila operators report the driver disabled, and so storage Available: a catalog without Manila
// (CSO main) and a Keystone that does not answer when the operator first starts (CSO release-4.20,
// the 4.19-4.22 shape). CSO creates the ClusterCSIDriver; the operator binary, started as deployed,
// reports Disabled with the reason, CSO's ManilaCSIDriverOperatorCRAvailable turns True
// (DriverDisabled) and, once True, is never False again; CSO's Manila Degraded is never True; and
// what the operator leaves as it stops still reads as Available.
func TestRealCSOReadsOurStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		gen    framework.CSOGeneration
		shape  func(t *testing.T)
		reason string
	}{
		{"main, no Manila in the catalog", framework.CSOMain, withoutManilaInCatalog, manila.ReasonNoManilaService},
		{"4.20, Keystone unreachable at first start", framework.CSO420, withKeystoneDown, manila.ReasonManilaNotReached},
	} {
		t.Run(tc.name, func(t *testing.T) { realCSOReadsOurStatus(t, tc.gen, tc.shape, tc.reason) })
	}
}

func realCSOReadsOurStatus(t *testing.T, gen framework.CSOGeneration, shape func(*testing.T), reason string) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	// A first start: no earlier process of this cluster found Manila.
	if err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(ctx, state.ConfigMapName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	shape(t)
	cso := world.StartCSO(t, framework.CSOOptions{Generation: gen, OperatorImage: framework.ImageOurOperator})
	framework.Eventually(t, csoTimeout, "the ClusterCSIDriver CSO creates", func(ctx context.Context) error {
		_, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		return err
	})
	history := watchCSOManila(t)
	// The process starts once CSO applied the operator's Deployment and the RBAC its start needs (CSO's
	// controllers apply them side by side): a process started earlier exits on a forbidden read,
	// where its pod would restart.
	framework.Eventually(t, csoTimeout, "the operator Deployment and RBAC CSO applies", func(ctx context.Context) error {
		if _, err := world.Kube.AppsV1().Deployments(names.OperatorNamespace).Get(ctx, framework.CSOManilaDeployment, metav1.GetOptions{}); err != nil {
			return err
		}
		review, err := world.Kube.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   "system:serviceaccount:" + names.OperatorNamespace + ":" + names.OperatorName,
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + names.OperatorNamespace, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "kube-system", Verb: "get", Resource: "configmaps",
				Name: "extension-apiserver-authentication"}}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		if !review.Status.Allowed {
			return fmt.Errorf("the operator may not read kube-system/extension-apiserver-authentication yet")
		}
		return nil
	})

	run := startBinary(t, nil)
	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != reason {
		t.Errorf("%s reason %s (%s), want %s", manila.ConditionDisabled, cond.Reason, cond.Message, reason)
	}
	available := framework.CSOManilaConditionPfx + "Available"
	framework.Eventually(t, csoTimeout, available+"=True (DriverDisabled)", func(ctx context.Context) error {
		c, err := cso.StorageCondition(ctx, available)
		if err != nil {
			return err
		}
		if c.Status != operatorv1.ConditionTrue || c.Reason != "DriverDisabled" {
			return fmt.Errorf("%s=%s (%s: %s)", available, c.Status, c.Reason, c.Message)
		}
		return nil
	})
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	// What the stopped operator left still reads as Available, as CSO reads it.
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !csoview.Available(d.Status.Conditions) || csoview.Degraded(d.Status.Conditions) {
		t.Errorf("after the stop the ClusterCSIDriver reads unavailable or degraded: %v", d.Status.Conditions)
	}
	has := func(part string) func(string) bool {
		return func(l string) bool { return strings.Contains(l, part+" ") }
	}
	for _, bad := range history.After(has(available+"=True"), func(l string) bool {
		return has(available+"=False")(l) || has(available+"=Unknown")(l) || has(framework.CSOManilaConditionPfx+"Degraded=True")(l)
	}) {
		t.Errorf("CSO's view of Manila after it first read Available: %s", bad)
	}
	t.Logf("CSO's Manila conditions, every version:\n%s", strings.Join(history.Lines(), "\n"))
}

// watchCSOManila records CSO's ManilaCSIDriverOperatorCR* conditions in its Storage CR, every version,
// as "Type=Status (Reason), ..." lines.
func watchCSOManila(t *testing.T) *framework.Changes {
	return watchCSOManilaIn(t, world.ControlPlane)
}

// watchCSOManilaIn is watchCSOManila of the cluster cp (a hosted cluster's guest).
func watchCSOManilaIn(t *testing.T, cp *framework.ControlPlane) *framework.Changes {
	return framework.WatchChanges(t, framework.OneObject(cp.Operator.OperatorV1().RESTClient(), "storages", "", "cluster"),
		func(s *operatorv1.Storage) string {
			var parts []string
			for _, c := range s.Status.Conditions {
				if strings.HasPrefix(c.Type, framework.CSOManilaConditionPfx) {
					parts = append(parts, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
				}
			}
			return strings.Join(parts, ", ")
		})
}

func withoutManilaInCatalog(t *testing.T) {
	t.Helper()
	if err := world.OpenStack.RemoveManilaFromCatalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Errorf("registering Manila again: %v", err)
		}
	})
}

func withKeystoneDown(t *testing.T) {
	t.Helper()
	if err := world.OpenStack.StopKeystone(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.StartKeystone(); err != nil {
			t.Errorf("starting Keystone again: %v", err)
		}
	})
}
