package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/utils/ptr"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// A predecessor's leader that holds its lease and never lets go: this operator manages nothing (no
// OpenStack request, no class, no operand), says so with PredecessorLeaseDegraded naming the lease and
// the holder once the grace is over, and takes over as soon as the lease is let go.
func TestPredecessorThatNeverLetsGo(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "held_type"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.PredecessorTakesItsLease(t, framework.Predecessor418, "stuck-pod_0d1e")
	opts, counter := framework.OperatorOptions()
	opts.PredecessorGrace = 2 * time.Second
	op := world.RunOperatorWith(t, opts, counter)

	cond := world.WaitForCondition(t, operator.PredecessorLeaseDegraded, operatorv1.ConditionTrue)
	lease := framework.PredecessorLease(framework.Predecessor418)
	if !strings.Contains(cond.Message, lease) || !strings.Contains(cond.Message, "stuck-pod_0d1e") || cond.Reason != operator.ReasonPredecessorHoldsIt {
		t.Errorf("condition %s: %s %q, want the lease %s and its holder named", cond.Type, cond.Reason, cond.Message, lease)
	}
	if n := len(counter.Log()); n > 0 {
		t.Errorf("%d OpenStack requests while a predecessor leads: %v", n, counter.Log())
	}
	if _, err := world.Kube.StorageV1().StorageClasses().Get(ctx, "csi-manila-held-type", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("StorageClass csi-manila-held-type while a predecessor leads: %v", err)
	}
	if _, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the operand Deployment while a predecessor leads: %v", err)
	}

	if err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Delete(ctx, lease, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForNoCondition(t, operator.PredecessorLeaseDegraded)
	world.WaitForStorageClass(t, "csi-manila-held-type", func(*storagev1.StorageClass) error { return nil })

	// Stopped while it waits, the process takes its condition with it: what it said (it manages
	// nothing because a predecessor leads) ends with it, and no one else would remove it.
	op.Stop()
	world.PredecessorTakesItsLease(t, framework.Predecessor418, "stuck-pod_0d1e")
	op = world.RunOperatorWith(t, opts, nil)
	world.WaitForCondition(t, operator.PredecessorLeaseDegraded, operatorv1.ConditionTrue)
	op.Stop()
	if c := world.Condition(t, operator.PredecessorLeaseDegraded); c != nil {
		t.Errorf("%s=%s left behind by a process stopped while a predecessor led", c.Type, c.Status)
	}

	// One left by a process that could not remove it (killed): the next process finds the lease free
	// at once and still clears it.
	world.SetCondition(t, operatorv1.OperatorCondition{Type: operator.PredecessorLeaseDegraded, Status: operatorv1.ConditionTrue,
		Reason: operator.ReasonPredecessorHoldsIt, Message: "left by a killed process"})
	if err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Delete(ctx, lease, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	world.RunOperatorWith(t, opts, nil)
	world.WaitForNoCondition(t, operator.PredecessorLeaseDegraded)
}

// Stopped while a predecessor leads that has not written its own conditions yet (a rollback to a
// predecessor whose first sync hangs), the binary, once its hand-over wait is over, removes what is
// still its own anyway, with an event naming it, before it exits: cluster-storage-operator then reads
// that the predecessor has not reported yet, not a view of this operator's that nobody keeps up.
func TestStopBeforeThePredecessorReports(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	// A cloud without Manila: this operator's ManilaControllerDisabled is what keeps storage Available,
	// so the hand-back keeps it until the predecessor reports (keepView), and only the exit removes it.
	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Errorf("registering Manila again: %v", err)
		}
	})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinary(t, []string{"--hand-over-wait=3s"})
	world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	p := framework.Predecessor418
	g, _ := predecessor.ByLease(framework.PredecessorLease(p))
	if oursLeft(ctx, world, p) == nil {
		t.Fatal("no condition of this operator's on the ClusterCSIDriver: the check below could not fail")
	}

	world.PredecessorTakesItsLease(t, p, "rollback-pod_5e2a")
	run.waitForLog(t, "it hands the ClusterCSIDriver back")
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	if err := oursLeft(ctx, world, p); err != nil {
		t.Errorf("after the process exited: %v", err)
	}
	evs, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range evs.Items {
		found = found || (e.Reason == "HandBackUnconfirmed" && strings.Contains(e.Message, g.Name))
	}
	if !found {
		t.Errorf("no event HandBackUnconfirmed naming %s", g.Name)
	}
}

// The binary stopped (SIGTERM) while it waits for a predecessor to let go takes its
// PredecessorLeaseDegraded with it before it exits.
func TestStopWhileAwaitingTakesItsCondition(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.PredecessorTakesItsLease(t, framework.Predecessor418, "stuck-pod_77b0")
	run := startBinary(t, []string{"--predecessor-grace=1s"})
	world.WaitForCondition(t, operator.PredecessorLeaseDegraded, operatorv1.ConditionTrue)
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	if c := world.Condition(t, operator.PredecessorLeaseDegraded); c != nil {
		t.Errorf("%s=%s left behind by the binary stopped while a predecessor led", c.Type, c.Status)
	}
}

// A predecessor's leader killed at the takeover (its pod force-deleted, its node lost) leaves its
// lease naming it. This operator waits the lease out, leads, and releases it as the killed leader's
// own release would have, so that the predecessor's next leader (a rollback) takes it at once:
// client-go waits a full lease duration (137 s under library-go) from its first look at a lease that
// names another holder, however long ago that holder renewed it. The check is the predecessor's
// client-go elector, with library-go's lease duration, leading within the test's usual deadline.
func TestKilledPredecessorsLeaseReleased(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	lease := framework.PredecessorLease(framework.Predecessor418)
	world.PredecessorLeaseFor(t, framework.Predecessor418, "killed-pod_7f3a", 3*time.Second)
	op := world.RunOperator(t)
	world.WaitForStorageClass(t, "csi-manila-default", func(*storagev1.StorageClass) error { return nil })
	framework.Eventually(t, framework.DefaultTimeout, "lease "+lease+" released", func(ctx context.Context) error {
		l, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if h := ptr.Deref(l.Spec.HolderIdentity, ""); h != "" {
			return fmt.Errorf("it names %s", h)
		}
		return nil
	})

	// The rollback's predecessor: a client-go elector as library-go configures it.
	ctx, cancel := context.WithCancel(context.Background())
	led := make(chan struct{})
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Name: lease, Namespace: names.OperatorNamespace},
			Client: world.Kube.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: "rollback-pod_2b9c"}},
		LeaseDuration: 137 * time.Second, RenewDeadline: 107 * time.Second, RetryPeriod: 2 * time.Second, ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{OnStartedLeading: func(context.Context) { close(led) }, OnStoppedLeading: func() {}},
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); elector.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-led:
	case <-time.After(framework.DefaultTimeout):
		t.Fatalf("the predecessor's next leader did not take lease %s within %s (it waits 137 s on a lease naming a holder)", lease, framework.DefaultTimeout)
	}
	// And this operator steps aside for it.
	framework.Eventually(t, framework.DefaultTimeout, "this operator stepping aside", func(context.Context) error {
		if !strings.Contains(op.Logs.String(), "this operator's controllers stopped; it hands the ClusterCSIDriver back") {
			return errors.New("not yet")
		}
		return nil
	})
	op.Stop() // before the elector's cleanup lets go, which would end its life with a predecessor that let go
}
