package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// Started before the ClusterCSIDriver exists (a cluster installing, the CR not created yet), the
// binary waits for it, and once it is created does its whole job.
func TestLifeStartsBeforeTheClusterCSIDriver(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "life_late"})
	run := startBinary(t, nil)
	run.waitForLog(t, "does not exist yet: this operator waits for it")
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.WaitForStorageClass(t, "csi-manila-life-late", nil)
	waitLeaseHeld(t)
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
}

// Every read and write of the cluster at every step before the controllers run is retried, never
// given up on with the lease held: the ClusterCSIDriver refused while a predecessor leads (read,
// PredecessorLeaseDegraded written, then removed), the API server stopped during that wait, and the
// access review cut short. Afterwards the classes appear and the process leads.
func TestLifeRetriesEveryStep(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "life_retry"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	world.PredecessorTakesItsLease(t, framework.Predecessor418, "rolling-pod_7a1c")

	const driverPath, reviewPath = "/clustercsidrivers/", "/selfsubjectaccessreviews"
	proxy := framework.StartAPIFaultProxy(t, world.ControlPlane)
	proxy.Refuse(driverPath)
	proxy.Refuse(reviewPath)
	kubeconfig := filepath.Join(t.TempDir(), "through-proxy.kubeconfig")
	if err := proxy.WriteServiceAccountKubeconfig(context.Background(), world.ControlPlane, names.OperatorNamespace, framework.OperatorServiceAccount, kubeconfig); err != nil {
		t.Fatal(err)
	}
	run := startBinaryWith(t, operatorBinary(t), func(args []string) []string {
		return append(withKubeconfig(args, kubeconfig), "--predecessor-grace=1s")
	})

	waitRefused(t, proxy, driverPath, 2) // the ClusterCSIDriver's read, retried
	proxy.Allow(driverPath)
	world.WaitForCondition(t, operator.PredecessorLeaseDegraded, operatorv1.ConditionTrue)

	// The API server gone during the predecessor wait: the wait goes on when it is back.
	if err := world.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := world.StartAPIServer(); err != nil {
		t.Fatal(err)
	}

	refused := proxy.Refused(driverPath)
	proxy.Refuse(driverPath)
	if err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Delete(context.Background(),
		framework.PredecessorLease(framework.Predecessor418), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitRefused(t, proxy, driverPath, refused+2) // PredecessorLeaseDegraded's removal, retried
	proxy.Allow(driverPath)
	world.WaitForNoCondition(t, operator.PredecessorLeaseDegraded)

	waitRefused(t, proxy, reviewPath, 2) // the access review, retried
	proxy.Allow(reviewPath)
	world.WaitForStorageClass(t, "csi-manila-life-retry", nil)
	waitLeaseHeld(t)
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
}

// Stopped with no predecessor around, the binary hands nothing over and exits at once, releasing its
// lease: a hand-over wait of ten minutes would outlast the kubelet's grace period here.
func TestLifeStopsAtOnceWithoutPredecessor(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	createShareType(t, framework.ShareTypeSpec{Name: "life_stop"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinary(t, []string{"--hand-over-wait=10m"})
	world.WaitForStorageClass(t, "csi-manila-life-stop", nil)
	waitLeaseHeld(t)
	if err := run.terminate(t); err != nil {
		t.Errorf("exit after SIGTERM: %v", err)
	}
	run.waitForLog(t, "no predecessor leads and no rollout replaces this pod, nothing to hand over")
	l, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(context.Background(), names.OperatorName+"-lock", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := l.Spec.HolderIdentity; h != nil && *h != "" {
		t.Errorf("lease %s still held by %q after the process ended", l.Name, *h)
	}
}

// withKubeconfig replaces the value of --kubeconfig in args.
func withKubeconfig(args []string, path string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == "--kubeconfig" && i+1 < len(out) {
			out[i+1] = path
		}
	}
	return out
}

func waitRefused(t *testing.T, proxy *framework.APIFaultProxy, part string, n int) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, fmt.Sprintf("%d refused requests to %s", n, part), func(context.Context) error {
		if got := proxy.Refused(part); got < n {
			return fmt.Errorf("%d so far", got)
		}
		return nil
	})
}

func waitLeaseHeld(t *testing.T) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "the operator's lease held", func(ctx context.Context) error {
		l, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).Get(ctx, names.OperatorName+"-lock", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return fmt.Errorf("lease %s is not held", l.Name)
		}
		return nil
	})
}
