package integration

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// buildOperator builds the operator binary with a version injected the way the Makefile does.
func buildOperator(t *testing.T, version string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "manila-csi-driver-operator")
	pkg := "github.com/manila-csi/manila-csi-driver-operator/pkg/version"
	cmd := exec.Command("go", "build", "-ldflags", fmt.Sprintf("-X %s.Version=%s -X %s.GitCommit=abc123", pkg, version, pkg),
		"-o", bin, "./cmd/manila-csi-driver-operator")
	cmd.Dir = framework.RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The real binary: `version` prints what the build injected; `start` runs controllercmd with
// leader election and a health endpoint, writes the ClusterCSIDriver status and stops on SIGTERM.
func TestBinaryVersionAndStart(t *testing.T) {
	bin := buildOperator(t, "v9.9.9-test")
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "v9.9.9-test") || !strings.Contains(string(out), "abc123") {
		t.Errorf("version printed %q, want the injected version and commit", out)
	}

	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "operator.log")
	logOut, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	defer logOut.Close()
	cmd := exec.Command(bin, "start", "--kubeconfig", world.Kubeconfig, "--namespace", names.OperatorNamespace,
		"--listen", "127.0.0.1:"+strconv.Itoa(port), "-v=2")
	cmd.Stdout, cmd.Stderr = logOut, logOut
	cmd.Env = os.Environ()
	for k, v := range framework.TestImages {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile)
			t.Logf("operator binary log:\n%s", b)
		}
	})

	world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionFalse)
	framework.Eventually(t, framework.DefaultTimeout, "the leader election lease", func(ctx context.Context) error {
		leases, err := world.Kube.CoordinationV1().Leases(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, l := range leases.Items {
			if strings.Contains(l.Name, names.OperatorName) && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
				return nil
			}
		}
		return fmt.Errorf("no held lease named after %s among %d", names.OperatorName, len(leases.Items))
	})
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed serving cert
	framework.Eventually(t, framework.DefaultTimeout, "/healthz", func(ctx context.Context) error {
		resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", port))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		stopped = true
	case <-time.After(60 * time.Second):
		t.Fatalf("the operator did not exit within 60s of SIGTERM")
	}
}
