package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guestlink"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The built binary, run as manifests/hosted's Deployment runs it (its args and environment, the guest
// kubeconfig from the HCP namespace's Secret volume, the HCP ServiceAccount's token, a read-only
// root), serves the guest: its classes, conditions and the pod's guest-link condition, with no
// request refused on either side.
func TestHostedBinaryRunsAsDeployed(t *testing.T) {
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	hw := world.StartHosted(t, framework.HostedOptions{})
	run, pod, args := startHostedBinary(t, hw)
	if !strings.Contains(strings.Join(args, " "), "--guest-kubeconfig=") {
		t.Fatalf("the hosted Deployment's args %v have no --guest-kubeconfig", args)
	}

	hw.Guest.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	hw.Guest.WaitForStorageClass(t, "csi-manila-default", nil)
	waitGuestLink(t, hw, &framework.HostedOperator{PodName: pod}, guestlink.ReasonReachable)
	run.waitForLog(t, "Serving the guest cluster at")
}

// startHostedBinary runs the built binary as manifests/hosted's Deployment runs it in hw's HCP
// namespace, polling Manila at the tests' pace; the test fails if its log shows a secret of the world
// or a request refused under the hosted RBAC. It returns the run, its pod's name and its args.
func startHostedBinary(t *testing.T, hw *framework.HostedWorld) (*binaryRun, string, []string) {
	t.Helper()
	emptyDir := t.TempDir()
	command, pod := hw.HostedOperatorCommandFor(t, emptyDir)
	logFile := filepath.Join(t.TempDir(), "operator.log")
	logOut, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	// Poll Manila at the tests' pace; everything else as deployed.
	args := append(command.Args, "--manila-poll-interval="+framework.PollInterval.String())
	cmd := exec.Command("bash", append([]string{filepath.Join(framework.RepoRoot(), "hack", "readonly-root.sh"), emptyDir, operatorBinary(t)}, args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Env = logOut, logOut, command.Env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := &binaryRun{cmd: cmd, exited: make(chan error, 1), port: command.Port, logFile: logFile}
	go func() { run.exited <- cmd.Wait(); logOut.Close() }()
	t.Cleanup(func() {
		run.stop()
		b, _ := os.ReadFile(logFile)
		for _, sentinel := range world.OpenStack.Sentinels() {
			if strings.Contains(string(b), sentinel) {
				t.Errorf("the operator binary's log shows one of the world's secrets:\n%s", framework.RedactSentinel(grepLines(string(b), sentinel), sentinel))
			}
		}
		if strings.Contains(string(b), "forbidden") {
			t.Errorf("the operator was refused a request under the hosted flavour's RBAC:\n%s", grepLines(string(b), "forbidden"))
		}
		framework.LogOnFailure(t, "operator binary log", 150, string(b))
	})
	return run, pod, args
}
