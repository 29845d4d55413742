package framework

import (
	"context"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// CinderCSIDriver is the ClusterCSIDriver CSO creates for Cinder, the other driver of the platform.
const CinderCSIDriver = "cinder.csi.openstack.org"

// cinderConditions are what a healthy Cinder operator keeps on its ClusterCSIDriver: its controller
// and node services available, not progressing, not degraded.
var cinderConditions = func() []operatorv1.OperatorCondition {
	var out []operatorv1.OperatorCondition
	for _, svc := range []string{"OpenStackCinderDriverControllerServiceController", "OpenStackCinderDriverNodeServiceController"} {
		out = append(out,
			operatorv1.OperatorCondition{Type: svc + "Available", Status: operatorv1.ConditionTrue, Reason: "AsExpected"},
			operatorv1.OperatorCondition{Type: svc + "Progressing", Status: operatorv1.ConditionFalse, Reason: "AsExpected"},
			operatorv1.OperatorCondition{Type: svc + "Degraded", Status: operatorv1.ConditionFalse, Reason: "AsExpected"})
	}
	return out
}()

// StandInForCinder stands in, until the test ends, for the Cinder CSI driver operator that CSO also
// runs on OpenStack and that cannot run here (the world has no Cinder): its Deployment's pods run
// idle (a pod runner on the node nodeName), and its ClusterCSIDriver gets the conditions
// a healthy Cinder operator keeps there. CSO then derives a healthy Cinder part of ClusterOperator
// storage, and a test can read storage whole. Hosted, the pods are in the HCP namespace and the
// ClusterCSIDriver in the guest.
func (c *CSO) StandInForCinder(t testing.TB, idle, nodeName string, nodeLabels map[string]string) {
	t.Helper()
	c.w.StartPodRunner(t, PodRunnerOptions{Namespace: c.namespace(), Selector: "name=openstack-cinder-csi-driver-operator",
		Images: map[string]string{c.env["OPENSTACK_CINDER_DRIVER_OPERATOR_IMAGE"]: idle}, NodeName: nodeName, NodeLabels: nodeLabels})
	standIn(t, "Cinder's operator", 500*time.Millisecond, c.reportCinderHealthy)
}

// reportCinderHealthy writes cinderConditions where they are not all there (once CSO created the
// ClusterCSIDriver).
func (c *CSO) reportCinderHealthy(ctx context.Context) error {
	crs := c.reports().Operator.OperatorV1().ClusterCSIDrivers()
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cr, err := crs.Get(ctx, CinderCSIDriver, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil // not created yet: the next tick
		}
		if err != nil {
			return err
		}
		changed := false
		for _, want := range cinderConditions {
			if got := v1helpers.FindOperatorCondition(cr.Status.Conditions, want.Type); got == nil || got.Status != want.Status {
				v1helpers.SetOperatorCondition(&cr.Status.Conditions, want)
				changed = true
			}
		}
		if !changed {
			return nil
		}
		_, err = crs.UpdateStatus(ctx, cr, metav1.UpdateOptions{})
		return err
	})
}
