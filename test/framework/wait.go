package framework

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	operatorstate "github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

// DefaultTimeout bounds every wait in the integration tests.
const DefaultTimeout = 60 * time.Second

// SlowWait is how long a wait of Eventually must take to be logged (as "waited 42s for ..."): the
// integration run prints these lines of its passing shards, so a run shows where a slow test's time
// went without a failure to point at it.
const SlowWait = 20 * time.Second

// Eventually polls check (see poll: quick at first, then every second) until it returns nil or the
// timeout passes; then the test fails with the last error check returned.
func Eventually(t testing.TB, timeout time.Duration, what string, check func(ctx context.Context) error) {
	t.Helper()
	began := time.Now()
	var last error
	err := poll(timeout, func(ctx context.Context) (bool, error) {
		err := check(ctx)
		// A check cut short by the deadline says only that; the one before it says why.
		if err != nil && (ctx.Err() == nil || last == nil) {
			last = err
		}
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("waiting %s for %s: %v", timeout, what, last)
	}
	if took := time.Since(began); took >= SlowWait {
		t.Logf("waited %.0fs for %s", took.Seconds(), what)
	}
}

// CreateClusterCSIDriver creates the ClusterCSIDriver manila.csi.openstack.org in the given state,
// and deletes it when the test ends.
func (cp *ControlPlane) CreateClusterCSIDriver(t testing.TB, state operatorv1.ManagementState) *operatorv1.ClusterCSIDriver {
	t.Helper()
	client := cp.Operator.OperatorV1().ClusterCSIDrivers()
	driver, err := client.Create(context.Background(), &operatorv1.ClusterCSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: names.CSIDriverName},
		Spec:       operatorv1.ClusterCSIDriverSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: state}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating ClusterCSIDriver: %v", err)
	}
	t.Cleanup(func() {
		err := client.Delete(context.Background(), names.CSIDriverName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ClusterCSIDriver: %v", err)
		}
		Eventually(t, DefaultTimeout, "ClusterCSIDriver deletion", func(ctx context.Context) error {
			_, err := client.Get(ctx, names.CSIDriverName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (err=%v)", err)
		})
		// What the operator keeps across its restarts belongs to this test's cluster only.
		err = cp.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(context.Background(), operatorstate.ConfigMapName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the operator's state ConfigMap: %v", err)
		}
	})
	return driver
}

// WaitForCondition waits until the ClusterCSIDriver has the condition with the given status and
// returns it.
func (cp *ControlPlane) WaitForCondition(t testing.TB, condType string, status operatorv1.ConditionStatus) operatorv1.OperatorCondition {
	t.Helper()
	return cp.WaitForConditionWithin(t, DefaultTimeout, condType, status)
}

// WaitForConditionWithin is WaitForCondition with its own deadline.
func (cp *ControlPlane) WaitForConditionWithin(t testing.TB, timeout time.Duration, condType string, status operatorv1.ConditionStatus) operatorv1.OperatorCondition {
	t.Helper()
	return cp.WaitForConditionNaming(t, timeout, condType, status, "")
}

// WaitForConditionNaming is WaitForConditionWithin for a condition whose message contains named: an
// earlier cause of the same status (a guest API server's RBAC still filling after its restart) is
// waited out, not taken for the one the test brought about.
func (cp *ControlPlane) WaitForConditionNaming(t testing.TB, timeout time.Duration, condType string, status operatorv1.ConditionStatus, named string) operatorv1.OperatorCondition {
	t.Helper()
	var found operatorv1.OperatorCondition
	what := fmt.Sprintf("condition %s=%s", condType, status)
	if named != "" {
		what += " naming " + named
	}
	Eventually(t, timeout, what, func(ctx context.Context) error {
		driver, err := cp.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := v1helpers.FindOperatorCondition(driver.Status.Conditions, condType)
		if c == nil {
			return fmt.Errorf("no condition %s; have %v", condType, driver.Status.Conditions)
		}
		if c.Status != status || !strings.Contains(c.Message, named) {
			return fmt.Errorf("%s is %s (%s: %s)", condType, c.Status, c.Reason, c.Message)
		}
		found = *c
		return nil
	})
	return found
}

// Consistently checks that check keeps returning nil for the whole period (polling every 100ms).
// It asserts a state that must hold, so it is no bare sleep: the test fails at the first violation.
func Consistently(t testing.TB, period time.Duration, what string, check func(ctx context.Context) error) {
	t.Helper()
	deadline := time.Now().Add(period)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := check(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s stopped holding: %v", what, err)
		}
		<-time.After(100 * time.Millisecond)
	}
}
