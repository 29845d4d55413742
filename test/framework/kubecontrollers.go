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
	p := startClusterProcess(t, "kube-controller-manager", filepath.Join(ProvisioningBinDir(), "kube-controller-manager"),
		"--kubeconfig="+w.Kubeconfig, "--controllers="+strings.Join(controllers, ","), "--leader-elect=false", "--secure-port=0")
	t.Logf("kube-controller-manager started (pid %d) with %s", p.Cmd.Process.Pid, strings.Join(controllers, ","))
}

// StartScheduler runs kube-scheduler until the test ends: DaemonSet pods name their node by affinity
// and wait for the scheduler to bind them, as on a cluster.
func (w *World) StartScheduler(t testing.TB) {
	t.Helper()
	startClusterProcess(t, "kube-scheduler", filepath.Join(ControlPlaneBinDir(), "kube-scheduler"),
		"--kubeconfig="+w.Kubeconfig, "--leader-elect=false", "--secure-port=0")
}

// startClusterProcess runs one of the cluster's own components (built by make deps-k8s) with its log in
// the test's directory until the test ends; a failed test shows the end of the log.
func startClusterProcess(t testing.TB, name, path string, args ...string) *Process {
	t.Helper()
	if err := requireFiles(name+" (hack/k8s-binaries.sh build: make deps-k8s)", path); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = []string{"PATH=" + os.Getenv("PATH")}, f, f
	p, err := StartProcess(cmd)
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		p.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			LogOnFailure(t, name+" log", 40, string(b))
		}
	})
	return p
}
