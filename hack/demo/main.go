// Command demo runs the operator's main job on a local embedded environment: a real kube-apiserver +
// etcd and a real Keystone + Manila (API, scheduler and a share service with the test backend) on
// 127.0.0.1. It starts Manila with no share types (the driver is Disabled), creates sample share
// types, and prints the ClusterCSIDriver's conditions and the objects the operator creates as it
// converges. Then it runs the controller Deployment the operator rendered (the provisioning world)
// and shows a claim on the default-type class becoming a Manila share. Ctrl-C stops it;
// DEMO_ONESHOT=1 exits once the share is shown. Everything it starts, it stops.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

var sampleShareTypes = []framework.ShareTypeSpec{
	{Name: "default"},
	{Name: "Gold_NFS", ExtraSpecs: map[string]string{"storage_protocol": "NFS"}},
	{Name: "private-silver", Private: true},
}

func main() {
	// testing.Main hands the framework's helpers a real *testing.T, as in hack/bench: the provisioning
	// world and its waits take one, a failed step fails the run, and cleanups stop everything in
	// reverse order of start.
	testing.Main(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "demo", F: func(t *testing.T) {
			if err := run(t); err != nil {
				t.Fatalf("demo: %v", err)
			}
		}}}, nil, nil)
}

func say(format string, args ...any) {
	fmt.Printf("[demo %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(t *testing.T) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	oneshot := os.Getenv("DEMO_ONESHOT") == "1"
	operatorBin := filepath.Join(framework.RepoRoot(), "_output", "bin", "manila-csi-driver-operator")
	if _, err := os.Stat(operatorBin); err != nil {
		return fmt.Errorf("%s is missing: run `make build`", operatorBin)
	}

	say("starting kube-apiserver + etcd and Keystone + Manila (API, scheduler, share service) on 127.0.0.1 ...")
	world, err := framework.StartWorldWith(ctx, framework.OpenStackOptions{ShareService: true})
	if err != nil {
		return err
	}
	t.Cleanup(func() {
		say("stopping the control plane and OpenStack")
		world.Stop()
	})
	say("kube-apiserver %s (KUBECONFIG=%s)", world.Config.Host, world.Kubeconfig)
	say("keystone %s, manila %s; Secret %s/%s holds clouds.yaml", world.OpenStack.AuthURL(), world.OpenStack.ManilaURL(),
		names.OperatorNamespace, names.CloudCredentialsSecret)

	if _, err := world.Operator.OperatorV1().ClusterCSIDrivers().Create(ctx, &operatorv1.ClusterCSIDriver{
		ObjectMeta: metav1.ObjectMeta{Name: names.CSIDriverName},
		Spec:       operatorv1.ClusterCSIDriverSpec{OperatorSpec: operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}},
	}, metav1.CreateOptions{}); err != nil {
		return err
	}
	say("created ClusterCSIDriver %s (Managed); Manila has no share types yet", names.CSIDriverName)

	operator, err := startOperator(world, operatorBin)
	if err != nil {
		return err
	}
	t.Cleanup(operator.stop)

	w := newWatcher(world)
	created := false
	deadline := time.Now().Add(3 * time.Minute)
	for {
		w.report(ctx)
		if !created && w.disabledReason == manila.ReasonNoShareTypes {
			for _, st := range sampleShareTypes {
				if _, err := world.OpenStack.CreateShareType(ctx, st); err != nil {
					return err
				}
				say("created share type %q in Manila (private=%v)", st.Name, st.Private)
			}
			created = true
		}
		if w.converged() && !w.announced {
			w.announced = true
			say("converged: Manila detected, the Manila and NFS CSI drivers are installed")
			if w.disabledReason == manila.ReasonDriverStarting {
				say("%s stays (%s) until the driver is Available: its pods run on nodes, and this local world has none",
					manila.ConditionDisabled, manila.ReasonDriverStarting)
			}
			claimShare(ctx, t, world)
			if oneshot {
				return nil
			}
			say("watching; Ctrl-C to stop (operator log: %s)", operator.logPath)
		}
		if oneshot && time.Now().After(deadline) {
			return errors.New("did not converge within 3 minutes; operator log: " + operator.logPath)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-operator.Exited:
			return fmt.Errorf("the operator exited: %v; log: %s", operator.Err, operator.logPath)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

type operatorProcess struct {
	*framework.Process
	logPath string
}

func startOperator(world *framework.World, bin string) (*operatorProcess, error) {
	port, err := framework.FreePort()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(framework.RepoRoot(), "_output", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "operator.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	// As deployed: the operator's ServiceAccount from manifests/, with its least-privilege RBAC.
	kubeconfig, err := world.WriteOperatorKubeconfig(context.Background(), dir)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "start", "--kubeconfig", kubeconfig, "--namespace", names.OperatorNamespace,
		"--listen", "127.0.0.1:"+strconv.Itoa(port), "--manila-poll-interval", "5s", "-v=2")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = os.Environ()
	for k, v := range framework.TestImages {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	started, err := framework.StartProcess(cmd)
	logFile.Close() // the child holds its own descriptor
	if err != nil {
		return nil, err
	}
	say("started %s start (pid %d), log in %s", filepath.Base(bin), cmd.Process.Pid, logPath)
	return &operatorProcess{Process: started, logPath: logPath}, nil
}

func (p *operatorProcess) stop() {
	say("stopping the operator")
	p.Stop(30 * time.Second)
}
