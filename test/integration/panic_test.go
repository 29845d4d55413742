package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The trigger of pkg/hooks/panictrigger_on.go, compiled only into a binary built with -tags
// panictrigger: the key in spec.unsupportedConfigOverrides and the start of the panic's message.
const (
	panicTriggerKey     = "testPanic"
	panicTriggerMessage = "panictrigger: the test asked for a panic"
	// panickingController runs the operand Deployment's hooks, with library-go's WithSyncDegradedOnError.
	panickingController = "ManilaDriverControllerServiceController"
)

// panicBinary builds the operator with the test-only panic trigger (see pkg/hooks/panictrigger_on.go).
func panicBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manila-csi-driver-operator")
	if err := framework.BuildOperator(path, "-s -w", "panictrigger"); err != nil {
		t.Fatal(err)
	}
	return path
}

// setPanicTrigger sets (value != "") or removes the trigger in the ClusterCSIDriver's spec.
func setPanicTrigger(t *testing.T, value string) {
	t.Helper()
	raw := []byte(nil)
	if value != "" {
		raw = []byte(fmt.Sprintf(`{%q: %q}`, panicTriggerKey, value))
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		client := world.Operator.OperatorV1().ClusterCSIDrivers()
		d, err := client.Get(context.Background(), names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.UnsupportedConfigOverrides = runtime.RawExtension{Raw: raw}
		_, err = client.Update(context.Background(), d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A panic in a sync ends the process (OPENSHIFT_ON_PANIC=crash in the manifest): library-go's
// base controller first writes <Controller>Degraded=True with its "panic caught" message, then the
// process exits non-zero with the panic in its log. Restarted as the kubelet would restart it, the
// operator converges, and the controller's next successful sync clears the condition. The release
// binary carries no trigger.
func TestPanicCrashesAndRestartConverges(t *testing.T) {
	release, err := os.ReadFile(operatorBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(release), panicTriggerMessage) {
		t.Fatalf("the release binary contains the test-only panic trigger")
	}

	image := freshClusterForBinary(t)
	bin := panicBinary(t)
	run := startBinaryOf(t, bin, shortLease)
	holder := waitForNewLeader(t, "")
	converged(t, image)
	world.WaitForCondition(t, panickingController+"Degraded", operatorv1.ConditionFalse)

	value := fmt.Sprintf("at %s", time.Now().UTC().Format(time.RFC3339Nano))
	setPanicTrigger(t, value)
	select {
	case err := <-run.exited:
		run.done = true
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("the operator ended with %v after the panic, want a non-zero exit", err)
		}
	case <-time.After(framework.DefaultTimeout):
		t.Fatalf("the operator still runs %s after the panic was triggered", framework.DefaultTimeout)
	}
	log, err := os.ReadFile(run.logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), panicTriggerMessage+": "+value) {
		t.Errorf("the log does not show the panic:\n%s", lastLines(string(log), 60))
	}
	degraded := world.WaitForCondition(t, panickingController+"Degraded", operatorv1.ConditionTrue)
	if !strings.Contains(degraded.Message, "panic caught") || !strings.Contains(degraded.Message, value) {
		t.Errorf("%sDegraded: %s: %q, want library-go's \"panic caught\" and the panic", panickingController, degraded.Reason, degraded.Message)
	}

	// The fix: in a real cluster a new operator image, here the trigger removed. The kubelet restarts
	// the container; the dead process's lease runs out first.
	setPanicTrigger(t, "")
	startBinaryOf(t, bin, shortLease)
	waitForNewLeader(t, holder)
	converged(t, image)
	world.WaitForCondition(t, panickingController+"Degraded", operatorv1.ConditionFalse)
	world.WaitForCondition(t, "ManilaControllerDegraded", operatorv1.ConditionFalse)
}
