package integration

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// watchDegraded records every Degraded=True condition the ClusterCSIDriver shows, in every status
// written, until the test ends: a check over the whole run, not at one instant.
func watchDegraded(t *testing.T) func() []string {
	t.Helper()
	return watchConditions(t, func(c operatorv1.OperatorCondition) bool {
		return strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue
	})
}

// watchDisabled records every *Disabled condition, whatever its status (cluster-storage-operator reads
// any of them as "driver disabled").
func watchDisabled(t *testing.T) func() []string {
	t.Helper()
	return watchConditions(t, func(c operatorv1.OperatorCondition) bool { return strings.HasSuffix(c.Type, "Disabled") })
}

// watchConditions records the conditions that match in every status written until the test ends.
func watchConditions(t *testing.T, match func(operatorv1.OperatorCondition) bool) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := world.Operator.OperatorV1().ClusterCSIDrivers().Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + names.CSIDriverName})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			d, ok := ev.Object.(*operatorv1.ClusterCSIDriver)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			for _, c := range d.Status.Conditions {
				if match(c) {
					mu.Lock()
					seen[fmt.Sprintf("%s (%s): %s", c.Type, c.Reason, c.Message)] = true
					mu.Unlock()
				}
			}
		}
	}()
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for k := range seen {
			out = append(out, k)
		}
		return out
	}
}

// A normal first start, from a ClusterCSIDriver without observed config to the installed operand,
// never shows a Degraded condition: waiting for the TLS profile is not a failure.
func TestFreshStartShowsNoDegraded(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	degraded := watchDegraded(t)
	world.RunOperator(t)
	converged := world.WaitForDeployment(t, nil)
	world.WaitForCondition(t, "ManilaDriverControllerServiceControllerDegraded", operatorv1.ConditionFalse)
	if got := degraded(); len(got) > 0 {
		t.Errorf("a fresh start showed Degraded: %v", got)
	}
	for _, c := range converged.Spec.Template.Spec.Containers {
		for _, a := range c.Args {
			if strings.Contains(a, "${") {
				t.Errorf("container %s has an unfilled argument %s", c.Name, a)
			}
		}
	}
}
