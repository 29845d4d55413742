package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/csoview"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The real predecessors on a cloud without Manila, where most OpenShift-on-OpenStack clusters are, and
// with Keystone unreachable (where both report Disabled too):
// csi-operator (4.18+) writes only CSIControllerDisabled=True (and StarterControllerDegraded=False),
// csi-driver-manila-operator (4.17) ManilaControllerDisabled=True (a type this operator shares). This operator's binary takes over (the predecessor stopped, as
// its pod is), then the predecessor starts again while this operator leads (a rollback) and this
// operator hands the ClusterCSIDriver back. Throughout, the ClusterCSIDriver read as
// cluster-storage-operator reads it (pkg/csoview) is never unavailable or degraded once it was
// available; after the takeover nothing of the predecessor's own is left, after the hand-back
// nothing of this operator's that the predecessor does not write.
func TestRealPredecessorOnACloudWithoutManila(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        framework.Predecessor
		g        predecessor.Generation
		disabled string
		shape    func(*testing.T)
		reason   string
	}{
		{"4.18, no Manila in the catalog", framework.Predecessor418, predecessor.CSIOperator, "CSIControllerDisabled", withoutManilaInCatalog, manila.ReasonNoManilaService},
		{"4.18, Keystone unreachable", framework.Predecessor418, predecessor.CSIOperator, "CSIControllerDisabled", withKeystoneDown, manila.ReasonManilaNotReached},
		{"4.17, no Manila in the catalog", framework.Predecessor417, predecessor.CSIDriverManilaOperator, manila.ConditionDisabled, withoutManilaInCatalog, manila.ReasonNoManilaService},
	} {
		t.Run(tc.name, func(t *testing.T) {
			realPredecessorOnACloudWithoutManila(t, tc.p, tc.g, tc.disabled, tc.shape, tc.reason)
		})
	}
}

func realPredecessorOnACloudWithoutManila(t *testing.T, p framework.Predecessor, g predecessor.Generation, disabled string, shape func(*testing.T), reason string) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	if err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(ctx, state.ConfigMapName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	shape(t)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	view := watchDriverView(t)

	pred := world.StartRealPredecessor(t, p)
	world.WaitForCondition(t, disabled, operatorv1.ConditionTrue)
	pred.Stop(30 * time.Second)

	run := startBinary(t, nil)
	// 4.17 writes the same type (reason NoManila): this operator's is the one with its reason.
	framework.Eventually(t, framework.DefaultTimeout, manila.ConditionDisabled+" ("+reason+")", func(context.Context) error {
		if c := world.Condition(t, manila.ConditionDisabled); c == nil || c.Status != operatorv1.ConditionTrue || c.Reason != reason {
			return fmt.Errorf("%+v", c)
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the predecessor's own conditions gone", func(ctx context.Context) error {
		return noConditionsOf(ctx, func(typ string) bool {
			return g.Writes(typ) && !slices.Contains(g.Shared, typ)
		})
	})

	// A rollback: the predecessor leads again while this operator runs.
	world.StartRealPredecessor(t, p)
	run.waitForLog(t, "this operator's controllers stopped; it hands the ClusterCSIDriver back")
	world.WaitForCondition(t, disabled, operatorv1.ConditionTrue)
	framework.Eventually(t, framework.DefaultTimeout, "this operator's conditions the predecessor does not write gone", func(ctx context.Context) error {
		return noConditionsOf(ctx, func(typ string) bool {
			return ourConditions.Has(typ) && !g.Writes(typ)
		})
	})
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	for _, bad := range view.After(func(l string) bool { return strings.HasPrefix(l, "Available=true ") },
		func(l string) bool { return !strings.HasPrefix(l, "Available=true Degraded=false ") }) {
		t.Errorf("as cluster-storage-operator reads it, after it was available: %s", bad)
	}
	t.Logf("the ClusterCSIDriver as cluster-storage-operator reads it, each change:\n%s", strings.Join(view.Lines(), "\n"))
}

func noConditionsOf(ctx context.Context, whose func(string) bool) error {
	d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		return err
	}
	var left []string
	for _, c := range d.Status.Conditions {
		if whose(c.Type) {
			left = append(left, c.Type)
		}
	}
	if len(left) > 0 {
		return fmt.Errorf("left: %v", left)
	}
	return nil
}

// watchDriverView records every version of the ClusterCSIDriver's conditions as cluster-storage-operator
// reads them, as "Available=<bool> Degraded=<bool> [the Available, Disabled and True conditions]" lines.
func watchDriverView(t *testing.T) *framework.Changes {
	return framework.WatchChanges(t, framework.OneObject(world.Operator.OperatorV1().RESTClient(), "clustercsidrivers", "", names.CSIDriverName),
		func(d *operatorv1.ClusterCSIDriver) string {
			var types []string
			for _, c := range d.Status.Conditions {
				if strings.HasSuffix(c.Type, "Available") || strings.HasSuffix(c.Type, "Disabled") || c.Status == operatorv1.ConditionTrue {
					types = append(types, c.Type+"="+string(c.Status))
				}
			}
			return fmt.Sprintf("Available=%v Degraded=%v %v", csoview.Available(d.Status.Conditions), csoview.Degraded(d.Status.Conditions), types)
		})
}
