package integration

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// operatorBinaryEnv names where the shards of one run share the operator binary
// (hack/test-integration.sh): one shard builds it, the others use it, instead of six links side by side.
const operatorBinaryEnv = "TEST_OPERATOR_BINARY"

var (
	binaryOnce sync.Once
	binaryPath string
	binaryDir  string // made by this process, removed by TestMain
	binaryErr  error
)

// operatorBinary builds the operator binary once per test run, stripped and with a version injected
// the way the Makefile does.
func operatorBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		pkg := "github.com/manila-csi/manila-csi-driver-operator/pkg/version"
		build := func(path string) error {
			return framework.BuildOperator(path, fmt.Sprintf("-s -w -X %s.Version=v9.9.9-test -X %s.GitCommit=abc123", pkg, pkg))
		}
		if shared := os.Getenv(operatorBinaryEnv); shared != "" {
			binaryPath, binaryErr = shared, framework.BuildShared(shared, build)
			return
		}
		if binaryDir, binaryErr = os.MkdirTemp("", "manila-operator-bin-"); binaryErr != nil {
			return
		}
		binaryPath = filepath.Join(binaryDir, "manila-csi-driver-operator")
		binaryErr = build(binaryPath)
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// binaryRun is the operator binary running as manifests/ deploys it.
type binaryRun struct {
	cmd     *exec.Cmd
	exited  chan error
	port    int
	logFile string
	done    bool
}

// startBinary starts the built binary with exactly the args and environment of the manifest's
// Deployment, except what a pod gets from its cluster: the listen address moved to a free loopback
// port, --kubeconfig with the ServiceAccount's token (in a pod, the mounted token), POD_NAME of a
// Pod of that Deployment, extraArgs, extraEnv (e.g. the CVO's proxy variables). The root file system is
// read-only and only TMPDIR, a fresh tmpfs standing in for the emptyDir, is writable.
func startBinary(t *testing.T, extraArgs []string, extraEnv ...string) *binaryRun {
	t.Helper()
	return startBinaryOf(t, operatorBinary(t), extraArgs, extraEnv...)
}

// startBinaryOf is startBinary with another build of the operator.
func startBinaryOf(t *testing.T, bin string, extraArgs []string, extraEnv ...string) *binaryRun {
	t.Helper()
	return startBinaryWith(t, bin, func(args []string) []string { return append(args, extraArgs...) }, extraEnv...)
}

// startBinaryWith is startBinaryOf with the manifest's args changed by editArgs.
func startBinaryWith(t *testing.T, bin string, editArgs func([]string) []string, extraEnv ...string) *binaryRun {
	t.Helper()
	emptyDir := t.TempDir()
	command := world.OperatorCommandFor(t, emptyDir)
	port := command.Port
	args := editArgs(command.Args)
	env := command.Env
	env = append(env, extraEnv...)
	logFile := filepath.Join(t.TempDir(), "operator.log")
	logOut, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(framework.RepoRoot(), "hack", "readonly-root.sh"), emptyDir, bin}, args...)...)
	cmd.Stdout, cmd.Stderr, cmd.Env = logOut, logOut, env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &binaryRun{cmd: cmd, exited: make(chan error, 1), port: port, logFile: logFile}
	go func() { r.exited <- cmd.Wait(); logOut.Close() }()
	t.Cleanup(func() {
		r.stop()
		b, _ := os.ReadFile(logFile)
		for _, sentinel := range world.OpenStack.Sentinels() {
			if strings.Contains(string(b), sentinel) {
				t.Errorf("the operator binary's log shows one of the world's secrets:\n%s", framework.RedactSentinel(grepLines(string(b), sentinel), sentinel))
			}
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile)
			framework.LogOnFailure(t, "operator binary log", 150, string(b))
		}
	})
	return r
}

func operatorDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	d, err := manifests.Deployment()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// waitForLog waits until the process has logged a line containing substr.
func (r *binaryRun) waitForLog(t *testing.T, substr string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, "the operator logging "+substr, func(context.Context) error {
		b, err := os.ReadFile(r.logFile)
		if err != nil {
			return err
		}
		if !strings.Contains(string(b), substr) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
}

// kill sends SIGKILL, as a node failure or an OOM kill would, and waits for the exit.
func (r *binaryRun) kill() {
	if r.done {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.exited
	r.done = true
}

// stop ends the process as the kubelet does, SIGTERM then SIGKILL after 30 s, so its lease is released.
func (r *binaryRun) stop() {
	if r.done {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Signal(syscall.SIGKILL)
		<-r.exited
	}
	r.done = true
}

// terminate sends SIGTERM, as the kubelet does, and returns the exit error, if any, within 60 s.
func (r *binaryRun) terminate(t *testing.T) error {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-r.exited:
		r.done = true
		return err
	case <-time.After(60 * time.Second):
		t.Fatalf("the operator did not exit within 60s of SIGTERM")
		return nil
	}
}

// waitHealthy waits until the health and readiness endpoints the probes use answer 200.
func (r *binaryRun) waitHealthy(t *testing.T) {
	t.Helper()
	d := operatorDeployment(t)
	c := d.Spec.Template.Spec.Containers[0]
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // self-signed serving cert
	for _, path := range []string{c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path} {
		framework.Eventually(t, framework.DefaultTimeout, path, func(ctx context.Context) error {
			resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d%s", r.port, path))
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		})
	}
}

// The real binary as deployed: `version` prints what the build injected; `start` with the
// manifest's args and env under the operator's ServiceAccount and a read-only root runs
// controllercmd with leader election, answers its probes, writes the ClusterCSIDriver status, names
// its Deployment in events, and stops on SIGTERM.
func TestBinaryRunsAsDeployed(t *testing.T) {
	bin := operatorBinary(t)
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "v9.9.9-test") || !strings.Contains(string(out), "abc123") {
		t.Errorf("version printed %q, want the injected version and commit", out)
	}

	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinary(t, nil)
	run.waitHealthy(t)
	world.WaitForCondition(t, "ManagementStateDegraded", operatorv1.ConditionFalse)
	waitLeaseHeld(t)
	framework.Eventually(t, framework.DefaultTimeout, "an event naming the operator's Deployment", func(ctx context.Context) error {
		evs, err := world.Kube.CoreV1().Events(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == "Deployment" && e.InvolvedObject.Name == names.OperatorName {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(evs.Items))
	})
	if err := run.terminate(t); err != nil {
		b, _ := os.ReadFile(run.logFile)
		t.Errorf("exit after SIGTERM: %v\n%s", err, lastLines(string(b), 40))
	}
	if b, _ := os.ReadFile(run.logFile); strings.Contains(string(b), "forbidden") {
		t.Errorf("the operator was refused a request under its ServiceAccount:\n%s", grepLines(string(b), "forbidden"))
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// setClusterProxy sets Proxy/cluster's spec and status as the network operator does (the status is what
// the operator observes), and sets both back to none when the test ends.
func setClusterProxy(t *testing.T, status configv1.ProxyStatus) {
	t.Helper()
	set := func(status configv1.ProxyStatus) {
		framework.Eventually(t, framework.DefaultTimeout, "Proxy/cluster", func(ctx context.Context) error {
			p, err := world.ConfigV1.ConfigV1().Proxies().Get(ctx, "cluster", metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Spec = configv1.ProxySpec{HTTPProxy: status.HTTPProxy, HTTPSProxy: status.HTTPSProxy, NoProxy: status.NoProxy}
			if p, err = world.ConfigV1.ConfigV1().Proxies().Update(ctx, p, metav1.UpdateOptions{}); err != nil {
				return err
			}
			p.Status = status
			_, err = world.ConfigV1.ConfigV1().Proxies().UpdateStatus(ctx, p, metav1.UpdateOptions{})
			return err
		})
	}
	set(status)
	t.Cleanup(func() { set(configv1.ProxyStatus{}) })
}

// With a cluster-wide proxy, the operator's own Keystone and Manila client goes through it: the
// cloud's host name resolves only at the proxy, so finding Manila proves every request went through.
// The operand gets the proxy from library-go's observed-proxy hooks.
func TestBinaryThroughClusterProxy(t *testing.T) {
	const host = "openstack.manila.test"
	proxy := framework.StartForwardProxy(t, map[string]string{host: "127.0.0.1"})
	ctx := context.Background()
	setClusterProxy(t, configv1.ProxyStatus{HTTPProxy: proxy.URL, HTTPSProxy: proxy.URL, NoProxy: ".cluster.local,.svc,localhost,127.0.0.1"})

	if err := world.OpenStack.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := world.OpenStack.RegisterManilaInCatalogAt(ctx, host); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.OpenStack.RemoveManilaFromCatalog(context.Background()); err != nil {
			t.Error(err)
		}
		if err := world.OpenStack.RegisterManilaInCatalog(context.Background()); err != nil {
			t.Error(err)
		}
	})
	if err := world.WriteCloudCredentials(ctx, world.OpenStack.CloudsYAMLAt(host)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.WriteCloudCredentials(context.Background(), world.OpenStack.CloudsYAML()); err != nil {
			t.Error(err)
		}
	})
	world.ResetOperand(t)
	createShareType(t, framework.ShareTypeSpec{Name: "default"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)

	env, err := world.ProxyEnv(ctx)
	if err != nil {
		t.Fatal(err)
	}
	startBinary(t, nil, env...)
	world.WaitForNoCondition(t, "ManilaControllerDisabled")
	world.WaitForCondition(t, "ManilaControllerDegraded", operatorv1.ConditionFalse)
	if proxy.Requests(host) == 0 {
		t.Errorf("Manila was found without a request through the proxy")
	}
	world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "csi-driver" {
				for _, e := range c.Env {
					if e.Name == "HTTPS_PROXY" && e.Value == proxy.URL {
						return nil
					}
				}
			}
		}
		return fmt.Errorf("the driver container has no HTTPS_PROXY=%s", proxy.URL)
	})
}
