package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// ProvisioningBinDir holds what hack/k8s-binaries.sh builds: manila-csi-plugin, csi-provisioner,
// csi-resizer, kube-controller-manager, csi-node-standin, csi-snapshotter and snapshot-controller
// (make demo builds only the first four and the stand-in), and hack/ceph-csi.sh's cephcsi.
func ProvisioningBinDir() string {
	return envOr("TEST_PROVISIONING_BIN_DIR", "_output/bin/provisioning")
}

// The containers of the operator's controller Deployment that the provisioning world runs.
const (
	DriverContainer      = "csi-driver"
	NodeForwardContainer = "csi-driver-nfs" // the node plugin the driver forwards to; csi-node-standin answers for it
	ProvisionerContainer = "csi-provisioner"
	ResizerContainer     = "csi-resizer"
)

// E2ENodeName is the node the controller pod "runs on" (its NODE_ID).
const E2ENodeName = "e2e-master-0"

// ProvisioningWorld turns claims on the operator's StorageClasses into Manila shares, as a cluster
// does: kube-controller-manager's PV binder and protection controllers, and the operator's controller
// Deployment run as processes: the real manila-csi-plugin and csi-provisioner with the arguments and
// environment the operator rendered (socket paths moved into a directory standing in for the pod's
// volumes), the provisioner (and the resizer, when it was built, and the snapshotter) as the
// Deployment's ServiceAccount, so the operator's RBAC is what they get; the snapshot controller runs
// beside them as the cluster's. As root, the driver also finds its container's mounts below /etc at
// their mountPaths (hack/container-mounts.sh, a private mount namespace): the CA path of the driver
// secret names the mounted OpenStack CA, as in the container.
// The driver's credentials reach the plugin as on a cluster: the provisioner reads the Secret the
// StorageClass names and passes it in each CSI call. A stand-in answers for the NFS node plugin. No
// data path: export locations are fake and nothing is mounted.
type ProvisioningWorld struct {
	// PodDir stands in for the controller pod's volumes (sockets, mounted Secrets and ConfigMaps).
	PodDir string
	// LogDir holds one log file per process.
	LogDir string
	// DriverMountsInPlace is true when the driver runs with its container's mounts below /etc at their
	// mountPaths (hack/container-mounts.sh, as root): a CA path in the driver secret then names the
	// mounted CA, as in the container.
	DriverMountsInPlace bool
	// Resizer is true when csi-resizer runs too (it was built), so claims can be expanded.
	Resizer bool
	// Snapshots is true when the snapshot controller and csi-snapshotter run too (both were built);
	// snapshotsMissing says which is missing otherwise (snapshots.go).
	Snapshots        bool
	snapshotsMissing error
	procs            []*process
	// controller is the cluster of the controller Deployment; hosted, the management cluster, and
	// the sidecars keep the guest kubeconfig the Deployment gives them.
	controller *ControlPlane
	hosted     bool
	// driver is the CSI driver of the Deployment the world runs.
	driver string
}

type process struct {
	name string
	*Process
}

// StartProvisioning starts the provisioning world for the operator's current controller Deployment
// (it must exist) and stops it when the test ends. Everything it starts talks to the world's
// kube-apiserver and Manila on 127.0.0.1.
func (w *World) StartProvisioning(t testing.TB) *ProvisioningWorld {
	t.Helper()
	return w.StartProvisioningWith(t, ProvisioningOptions{})
}

// ProvisioningOptions says where the controller Deployment is, when not in w's operand namespace.
type ProvisioningOptions struct {
	// Controller and ControllerNamespace, hosted: the management cluster and the HCP namespace. The
	// controller pod's volumes (the guest kubeconfig among them) and environment come from there, and
	// its sidecars reach w (the guest) with the --kubeconfig the Deployment gives them.
	Controller          *ControlPlane
	ControllerNamespace string
	// CephFS runs the CephFS instance's controller Deployment (operator config cephfs.enabled) in
	// place of the NFS one: its driver cephfs.manila.csi.openstack.org forwards Probe to its ceph-csi
	// container, for which csi-node-standin answers in its ceph-csi mode.
	CephFS bool
}

// The CephFS instance's controller Deployment and its container the driver forwards Probe to.
const (
	CephFSControllerDeployment = "openstack-manila-cephfs-csi-controllerplugin"
	CephFSForwardContainer     = "csi-driver-cephfs"
	CephFSDriverName           = names.CephFSDriverName
)

// StartProvisioningWith is StartProvisioning for a controller Deployment placed as opts says.
func (w *World) StartProvisioningWith(t testing.TB, opts ProvisioningOptions) *ProvisioningWorld {
	t.Helper()
	controller, namespace := w.ControlPlane, names.OperandNamespace
	if opts.Controller != nil {
		controller, namespace = opts.Controller, opts.ControllerNamespace
	}
	bin := ProvisioningBinDir()
	binary := func(name string) string { return filepath.Join(bin, name) }
	if err := requireFiles("provisioning world (hack/k8s-binaries.sh build: make deps-k8s)", binary("kube-controller-manager"),
		binary("manila-csi-plugin"), binary("csi-provisioner"), binary("csi-node-standin")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	deployment, forward, driver := ControllerDeployment, NodeForwardContainer, names.CSIDriverName
	if opts.CephFS {
		deployment, forward, driver = CephFSControllerDeployment, CephFSForwardContainer, CephFSDriverName
	}
	d, err := controller.Kube.AppsV1().Deployments(namespace).Get(ctx, deployment, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the operator's controller Deployment: %v", err)
	}
	// Short: unix socket paths must stay under 108 bytes.
	podDir, err := os.MkdirTemp("", "e2e-pod-")
	if err != nil {
		t.Fatal(err)
	}
	p := &ProvisioningWorld{PodDir: podDir, LogDir: t.TempDir(), controller: controller, hosted: opts.Controller != nil, driver: driver}
	t.Cleanup(func() {
		p.Stop(t)
		_ = os.RemoveAll(podDir)
	})
	pod := &podRoot{dir: podDir, spec: d.Spec.Template.Spec, namespace: namespace,
		podName: d.Name + "-e2e", nodeName: E2ENodeName}
	// As a kubelet does, wait for the volumes' Secrets and ConfigMaps: some come from the cluster's
	// actors (the metrics serving cert from service-ca) a moment after the Deployment.
	Eventually(t, DefaultTimeout, "the controller pod's volumes", func(ctx context.Context) error {
		return pod.materialize(ctx, controller.Kube)
	})
	container := func(name string) corev1.Container {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("the controller Deployment has no container %s", name)
		return corev1.Container{}
	}

	// As the cluster's own controller, with the world's admin identity.
	p.start(t, "kube-controller-manager", binary("kube-controller-manager"), []string{
		"--kubeconfig=" + w.Kubeconfig,
		"--controllers=persistentvolume-binder-controller,persistentvolumeclaim-protection-controller,persistentvolume-protection-controller",
		"--leader-elect=false", "--secure-port=0",
	}, []string{"PATH=" + os.Getenv("PATH")})

	// The node plugin first: the driver forwards Probe to it.
	for _, step := range []struct{ container, binary string }{
		{forward, "csi-node-standin"},
		{DriverContainer, "manila-csi-plugin"},
	} {
		c := container(step.container)
		args, env, err := pod.command(ctx, controller.Kube, c, nil)
		if err != nil {
			t.Fatalf("container %s: %v", c.Name, err)
		}
		path := binary(step.binary)
		if step.container == DriverContainer {
			path, args = p.driverInContainerMounts(t, pod, c, path, args)
		}
		p.start(t, step.binary, path, args, env)
		p.waitForSocket(t, step.binary, socketArg(args, "--endpoint"))
	}

	p.startSidecar(t, w, pod, container(ProvisionerContainer), binary("csi-provisioner"), p.leaseName(""))
	// The resizer builds from the module proxy at a pinned version; without it, no expansion.
	if _, err := os.Stat(binary("csi-resizer")); err == nil {
		p.startSidecar(t, w, pod, container(ResizerContainer), binary("csi-resizer"), p.leaseName("external-resizer-"))
		p.Resizer = true
	}
	p.startSnapshots(t, w, pod, container(SnapshotterContainer))
	return p
}

// driverInContainerMounts runs the driver, as root, with the csi-driver container's mounts below /etc
// (the OpenStack CA copy, the trusted CA bundle) at their mountPaths in a private mount namespace
// (hack/container-mounts.sh), so the CA path of the driver secret it receives over CSI names the
// mounted CA as in the container; otherwise unchanged (DriverMountsInPlace stays false).
func (p *ProvisioningWorld) driverInContainerMounts(t testing.TB, pod *podRoot, c corev1.Container, binary string, args []string) (string, []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Logf("not root: %s runs without its /etc mounts in place (the CA path of a driver secret names nothing)", c.Name)
		return binary, args
	}
	scratch, err := os.MkdirTemp(p.PodDir, "mnt-")
	if err != nil {
		t.Fatal(err)
	}
	path, wrapped, ok := pod.inContainerMounts(c, scratch, binary, args, "/etc")
	if !ok {
		return binary, args
	}
	p.DriverMountsInPlace = true
	return path, wrapped
}

// leaseName is the leader-election Lease of a sidecar for the world's driver, as csi-lib-utils names it.
func (p *ProvisioningWorld) leaseName(prefix string) string {
	return prefix + regexp.MustCompile(`[^a-zA-Z0-9-]`).ReplaceAllString(p.driver, "-")
}

// startSidecar runs a CSI sidecar container of the Deployment and waits until it holds its Lease.
// Out of a pod, a kubeconfig of the pod's ServiceAccount replaces the mounted token and POD_NAMESPACE
// the namespace file; the diagnostics endpoint moves to a free loopback port.
func (p *ProvisioningWorld) startSidecar(t testing.TB, w *World, pod *podRoot, c corev1.Container, path, lease string) {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args, env, err := pod.command(context.Background(), p.controller.Kube, c, map[string]string{"--http-endpoint": "127.0.0.1:" + strconv.Itoa(port)})
	if err != nil {
		t.Fatalf("container %s: %v", c.Name, err)
	}
	name := filepath.Base(path)
	if p.hosted {
		// The Deployment's own --kubeconfig (the mounted guest kubeconfig) and leader-election namespace.
		started := time.Now()
		p.start(t, name, path, args, append(env, "POD_NAMESPACE="+pod.namespace))
		p.waitForLease(t, w, name, lease, started)
		return
	}
	var kubeconfig string
	Eventually(t, DefaultTimeout, "a token of ServiceAccount "+pod.spec.ServiceAccountName, func(ctx context.Context) error {
		kubeconfig, err = w.WriteServiceAccountKubeconfig(ctx, names.OperandNamespace, pod.spec.ServiceAccountName,
			filepath.Join(p.LogDir, c.Name+".kubeconfig"))
		return err
	})
	args = append(args, "--kubeconfig="+kubeconfig)
	env = append(env, "POD_NAMESPACE="+names.OperandNamespace)
	started := time.Now()
	p.start(t, name, path, args, env)
	p.waitForLease(t, w, name, lease, started)
}

// socketArg returns the socket path of the unix:// endpoint flag.
func socketArg(args []string, flag string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return strings.TrimPrefix(v, "unix://")
		}
	}
	return ""
}

// start runs a process with its output in LogDir/name.log.
func (p *ProvisioningWorld) start(t testing.TB, name, path string, args, env []string) {
	t.Helper()
	logPath := filepath.Join(p.LogDir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.Dir = env, f, f, p.PodDir
	started, err := StartProcess(cmd)
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p.procs = append(p.procs, &process{name: name, Process: started})
	t.Logf("%s started (pid %d): %s", name, cmd.Process.Pid, strings.Join(args, " "))
}

// alive fails the test with the process's log if it has exited.
func (p *ProvisioningWorld) alive(t testing.TB, name string) {
	t.Helper()
	for _, proc := range p.procs {
		if proc.name != name {
			continue
		}
		select {
		case <-proc.Exited:
			t.Fatalf("%s exited (%v):\n%s", name, proc.Cmd.ProcessState, p.Log(name, 40))
		default:
		}
	}
}

// stopProcess stops the processes of the name and forgets them, so that one of the name can start again.
func (p *ProvisioningWorld) stopProcess(name string) {
	kept := p.procs[:0]
	for _, proc := range p.procs {
		if proc.name == name {
			proc.Stop(10 * time.Second)
			continue
		}
		kept = append(kept, proc)
	}
	p.procs = kept
}

func (p *ProvisioningWorld) waitForSocket(t testing.TB, name, path string) {
	t.Helper()
	Eventually(t, DefaultTimeout, name+" listening on "+path, func(context.Context) error {
		p.alive(t, name)
		_, err := os.Stat(path)
		return err
	})
}

// waitForLease waits until the process holds the Lease, i.e. it works rather than waits.
func (p *ProvisioningWorld) waitForLease(t testing.TB, w *World, name, lease string, since time.Time) {
	t.Helper()
	Eventually(t, DefaultTimeout, name+" to hold Lease "+lease, func(ctx context.Context) error {
		p.alive(t, name)
		l, err := w.Kube.CoordinationV1().Leases(names.OperandNamespace).Get(ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(since.Truncate(time.Second)) {
			return fmt.Errorf("not renewed since %s", since.Format(time.TimeOnly))
		}
		return nil
	})
}

// Log returns the last lines of a process's log.
func (p *ProvisioningWorld) Log(name string, lines int) string {
	b, _ := os.ReadFile(filepath.Join(p.LogDir, name+".log"))
	return tail(string(b), lines)
}

// Stop stops every process by its PID, last started first: SIGTERM, then SIGKILL after 10 s. On a
// failed test the logs' last lines go to the test log.
func (p *ProvisioningWorld) Stop(t testing.TB) {
	for i := len(p.procs) - 1; i >= 0; i-- {
		proc := p.procs[i]
		proc.Stop(10 * time.Second)
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(p.LogDir, proc.name+".log"))
			LogOnFailure(t, proc.name+" log", 60, string(b))
		}
	}
	p.procs = nil
}
