package framework

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// StartKubeControllers runs kube-controller-manager with only the named controllers (for example
// garbage-collector-controller, daemonset-controller) until the test ends, as the cluster's own
// controllers act on the operator's objects: a DaemonSet deleted with propagationPolicy Orphan
// stays Terminating until the garbage collector has orphaned its pods, and only the DaemonSet
// controller creates and adopts a DaemonSet's pods. Without a kubelet no pod ever runs.
func (w *World) StartKubeControllers(t testing.TB, controllers ...string) {
	t.Helper()
	path := filepath.Join(ProvisioningBinDir(), "kube-controller-manager")
	if err := requireFiles("kube-controller-manager (hack/k8s-binaries.sh build: make deps-k8s)", path); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "kube-controller-manager.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(path, "--kubeconfig="+w.Kubeconfig, "--controllers="+strings.Join(controllers, ","),
		"--leader-elect=false", "--secure-port=0")
	cmd.Env, cmd.Stdout, cmd.Stderr = []string{"PATH=" + os.Getenv("PATH")}, f, f
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatalf("starting kube-controller-manager: %v", err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			LogOnFailure(t, "kube-controller-manager log", 40, string(b))
		}
	})
	t.Logf("kube-controller-manager started (pid %d) with %s", cmd.Process.Pid, strings.Join(controllers, ","))
}

// StartScheduler runs kube-scheduler until the test ends: DaemonSet pods name their node by affinity
// and wait for the scheduler to bind them, as on a cluster.
func (w *World) StartScheduler(t testing.TB) {
	t.Helper()
	path := filepath.Join(ControlPlaneBinDir(), "kube-scheduler")
	if err := requireFiles("kube-scheduler (hack/k8s-binaries.sh build: make deps-k8s)", path); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "kube-scheduler.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(path, "--kubeconfig="+w.Kubeconfig, "--leader-elect=false", "--secure-port=0")
	cmd.Env, cmd.Stdout, cmd.Stderr = []string{"PATH=" + os.Getenv("PATH")}, f, f
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatalf("starting kube-scheduler: %v", err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			LogOnFailure(t, "kube-scheduler log", 40, string(b))
		}
	})
}
