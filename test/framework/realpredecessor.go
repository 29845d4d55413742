package framework

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// realPredecessorBinaries are the real OpenShift Manila operators hack/cso.sh builds, by generation.
var realPredecessorBinaries = map[Predecessor]string{
	Predecessor417: "csi-driver-manila-operator-4.17",
	Predecessor418: "openstack-manila-csi-driver-operator",
}

// RealPredecessor is one of OpenShift's own Manila operators, the real binary, running as a process
// against the world: `start` in the operator namespace, the operand images of TestImages, and the
// world's clouds.yaml at /etc/openstack/clouds.yaml, where both read it (hack/at-paths.sh: a private
// mount namespace, as a container's Secret volume). It runs with the world's admin kubeconfig: CSO's
// Role and ClusterRole for it are broader than this operator's, and what it may do is not under test.
type RealPredecessor struct {
	*Process
	LogPath string
}

// StartRealPredecessor starts generation p until Stop or the end of the test (SIGTERM: it releases
// its lease, as its pod does when stopped).
func (w *World) StartRealPredecessor(t testing.TB, p Predecessor) *RealPredecessor {
	t.Helper()
	bin := RealPredecessorBinary(t, p)
	dir := t.TempDir()
	openstackDir := filepath.Join(dir, "openstack")
	if err := os.MkdirAll(openstackDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(openstackDir, "clouds.yaml"), w.OpenStack.CloudsYAML(), 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "predecessor.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script("at-paths.sh"), openstackDir+"=/etc/openstack", "--", bin, "start",
		"--kubeconfig="+w.Kubeconfig, "--namespace="+names.OperatorNamespace, "--listen=127.0.0.1:"+strconv.Itoa(port), "-v=2")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + dir, "HOME=" + dir}
	for name, image := range TestImages {
		cmd.Env = append(cmd.Env, name+"="+image)
	}
	proc, err := StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	r := &RealPredecessor{Process: proc, LogPath: logPath}
	t.Cleanup(func() {
		r.Stop(30 * time.Second)
		logFile.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			LogOnFailure(t, string(p)+" log", 60, string(b))
		}
	})
	return r
}

// RealPredecessorBinary is the path of generation p's real binary, which hack/cso.sh builds.
func RealPredecessorBinary(t testing.TB, p Predecessor) string {
	t.Helper()
	bin := filepath.Join(CSOBinDir(), realPredecessorBinaries[p])
	if err := requireFiles("OpenShift's Manila operator (hack/cso.sh build "+CSOBinDir()+")", bin); err != nil {
		t.Fatal(err)
	}
	return bin
}
