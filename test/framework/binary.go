package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// BuildOperator builds the operator binary into path with the given -ldflags and build tags.
func BuildOperator(path, ldflags string, tags ...string) error {
	cmd := exec.Command("go", "build", "-ldflags", ldflags, "-tags", strings.Join(tags, ","), "-o", path, "./cmd/manila-csi-driver-operator")
	cmd.Dir = RepoRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// BuildShared makes sure path holds what build writes, building it at most once among the processes
// that call it with the same path (the shards of one run): the first builds under a lock on
// path+".lock", into a temporary file it then renames; the others wait for the lock and find it done.
func BuildShared(path string, build func(path string) error) error {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("locking %s.lock: %w", path, err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	tmp := path + ".building"
	if err := build(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// OperatorCommand is how manifests/ runs the operator, as a process on this machine.
type OperatorCommand struct {
	Args, Env []string
	Port      int // the health and metrics endpoint, on 127.0.0.1
}

// OperatorCommandFor returns exactly the args and environment of the manifest's Deployment, except
// what a pod gets from its cluster: the listen address moved to a free loopback port, --kubeconfig
// with the ServiceAccount's token (in a pod, the mounted token), POD_NAME of a Pod of that
// Deployment, TMPDIR at tmpDir (the emptyDir), and paths in flag values mapped into the pod's Secret
// and ConfigMap volumes, written here as the kubelet writes them (it waits, as the kubelet does,
// until a Secret volume's Secret exists, e.g. the serving certificate service-ca issues).
func (w *World) OperatorCommandFor(t testing.TB, tmpDir string) OperatorCommand {
	t.Helper()
	d, err := manifests.Deployment()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := w.WriteOperatorKubeconfig(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w.commandOf(t, d, names.OperatorNamespace, kubeconfig, w.OperatorPod(t), tmpDir)
}

// commandOf is the command of Deployment d's first container, run in namespace as the identity of
// kubeconfig, as pod podName; see OperatorCommandFor.
func (w *World) commandOf(t testing.TB, d *appsv1.Deployment, namespace, kubeconfig, podName, tmpDir string) OperatorCommand {
	t.Helper()
	c := d.Spec.Template.Spec.Containers[0]
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pod := &podRoot{dir: t.TempDir(), spec: d.Spec.Template.Spec, namespace: namespace}
	Eventually(t, DefaultTimeout, "the operator pod's Secret and ConfigMap volumes", func(ctx context.Context) error {
		return pod.materialize(ctx, w.Kube)
	})
	cmd := OperatorCommand{Port: port}
	for _, a := range c.Args {
		name, value, isFlag := strings.Cut(a, "=")
		switch {
		case name == "--listen":
			a = "--listen=127.0.0.1:" + strconv.Itoa(port)
		case isFlag && strings.HasPrefix(name, "-"):
			a = name + "=" + pod.hostValue(c, value)
		}
		cmd.Args = append(cmd.Args, a)
	}
	cmd.Args = append(cmd.Args, "--kubeconfig", kubeconfig)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "POD_NAME=" + podName}
	for _, e := range c.Env {
		switch {
		case e.Name == "TMPDIR":
			cmd.Env = append(cmd.Env, "TMPDIR="+tmpDir)
		case e.ValueFrom == nil:
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		case e.ValueFrom.ResourceFieldRef != nil: // as the kubelet resolves it: the quantity in bytes
			resource := strings.TrimPrefix(e.ValueFrom.ResourceFieldRef.Resource, "requests.")
			q := c.Resources.Requests[corev1.ResourceName(resource)]
			cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", e.Name, q.Value()))
		}
	}
	return cmd
}
