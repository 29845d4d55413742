package framework

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// RegistrarContainer is the node DaemonSet's node-driver-registrar: its --kubelet-registration-path
// tells the kubelet where the driver's socket is.
const RegistrarContainer = "csi-node-driver-registrar"

// NodeOptions shape the node world.
type NodeOptions struct {
	// StageUnstage makes the NFS stand-in report STAGE_UNSTAGE_VOLUME. manila-csi-plugin proxies the
	// capability of the plugin it forwards to; csi-driver-nfs itself does not stage, so without it
	// the kubelet only publishes (and the driver builds the volume context at publish).
	StageUnstage bool
	// CephFS runs the CephFS instance's node pods (operator config cephfs.enabled) in place of the
	// NFS ones: the real manila-csi-plugin of DaemonSet openstack-manila-cephfs-csi-nodeplugin,
	// forwarding to csi-node-standin in its ceph-csi mode, started with the rendered arguments of the
	// csi-driver container of csi-nodeplugin-cephfsplugin (ceph-csi always stages).
	CephFS bool
	// CephCSI, with CephFS, runs the real ceph-csi (cephcsi, hack/ceph-csi.sh) in place of the
	// stand-in, with the rendered arguments and its /etc volumes at their mountPaths
	// (hack/container-mounts.sh). The node's kubelet directory is shared with this process as the
	// DaemonSet's Bidirectional mounts share it with the node, so ceph-fuse's staging mounts and the
	// publish bind mounts are seen here: a test reads and writes the volume at its target path. The
	// stand-in's record (Calls, LastCall) is then empty.
	CephCSI bool
	// NFS runs the real csi-driver-nfs (nfsplugin, hack/nfs.sh build) in place of the NFS stand-in,
	// with the rendered arguments of csi-nodeplugin-nfsplugin's csi-driver container and the node's
	// kubelet directory a shared mount, as for CephCSI. Its `mount -t nfs` finds, in its own mount
	// namespace only, hack/nfs/mount.nfs at /sbin/mount.nfs: an NFSv3 mount through FUSE with
	// fuse-nfs, whose daemon outlives the plugin's process as a kernel mount would. The stand-in's
	// record is then empty.
	NFS bool
	// Name is the node's name (the pods' spec.nodeName, ceph-csi's --nodeid); E2ENodeName when empty.
	Name string
}

// NodeWorld is one node of the cluster as the operator's node DaemonSets would run on it: the real
// manila-csi-plugin with the arguments, environment and volumes the operator rendered for the csi-driver
// container of DaemonSet openstack-manila-csi-nodeplugin, forwarding to csi-node-standin, which
// stands in for csi-driver-nfs (the csi-driver container of csi-nodeplugin-nfsplugin, started with its
// rendered arguments): it answers every node call with success instead of mounting and records it.
// HostDir stands in for the node's filesystem: hostPath volumes of both pods are directories under
// it, so the forwarding socket is shared as on a node. A Kubelet (kubelet.go) makes the kubelet's
// calls on the driver's socket. Neither pod registers with a kubelet and nothing is mounted.
type NodeWorld struct {
	// HostDir stands in for the node's filesystem ("/" of the node).
	HostDir string
	// DriverSocket is the manila-csi-plugin socket on this machine: the registrar's
	// --kubelet-registration-path under HostDir.
	DriverSocket string
	// RecordPath is the NFS stand-in's JSON-lines record of the node calls it received.
	RecordPath string
	// LogDir holds one log file per process.
	LogDir string

	driverPod *podRoot
	driver    corev1.Container
	runner    *ProvisioningWorld // the process runner (start, logs, stop) the provisioning world uses
	standin   string             // the csi-node-standin binary, also the kubelet's gRPC client
	// kubeletDir is HostDir's /var/lib/kubelet when it is a shared mount for a real node plugin.
	kubeletDir string
	cephCSI    pluginStart
	nfsPlugin  pluginStart
}

// NodeCall is one node call the NFS stand-in received (hack/csi-node-standin's record). It never holds
// secret values, only the names of the secret's keys.
type NodeCall struct {
	Method            string            `json:"method"`
	VolumeID          string            `json:"volumeID"`
	StagingTargetPath string            `json:"stagingTargetPath,omitempty"`
	TargetPath        string            `json:"targetPath,omitempty"`
	VolumeContext     map[string]string `json:"volumeContext,omitempty"`
	MountFlags        []string          `json:"mountFlags,omitempty"`
	FsType            string            `json:"fsType,omitempty"`
	AccessMode        string            `json:"accessMode,omitempty"`
	Readonly          bool              `json:"readonly,omitempty"`
	SecretKeys        []string          `json:"secretKeys,omitempty"`
	// UserID and UserKeySHA256, ceph-csi mode only: the stage secrets' cephx user, and the SHA-256
	// (hex) of its key, never the key.
	UserID        string `json:"userID,omitempty"`
	UserKeySHA256 string `json:"userKeySHA256,omitempty"`
}

// StartNode runs the node plugin pods of the operator's current node DaemonSets (both must exist)
// on one node, E2ENodeName, until the test ends or Stop.
func (w *World) StartNode(t testing.TB, opts NodeOptions) *NodeWorld {
	t.Helper()
	bin := ProvisioningBinDir()
	driverBin, standinBin := filepath.Join(bin, "manila-csi-plugin"), filepath.Join(bin, "csi-node-standin")
	if err := requireFiles("node world (hack/k8s-binaries.sh build: make deps-k8s)", driverBin, standinBin); err != nil {
		t.Fatal(err)
	}
	cephCSIBin, nfsBin := filepath.Join(bin, "cephcsi"), filepath.Join(bin, "nfsplugin")
	if opts.CephCSI {
		if err := requireFiles("ceph-csi (hack/ceph-csi.sh build "+bin+")", cephCSIBin); err != nil {
			t.Fatal(err)
		}
	}
	if opts.NFS {
		if err := requireFiles("csi-driver-nfs and fuse-nfs (hack/nfs.sh build "+bin+")", nfsBin, filepath.Join(bin, "fuse-nfs")); err != nil {
			t.Fatal(err)
		}
	}
	nodeName := opts.Name
	if nodeName == "" {
		nodeName = E2ENodeName
	}
	ctx := context.Background()
	// Short: unix socket paths must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "e2e-node-")
	if err != nil {
		t.Fatal(err)
	}
	n := &NodeWorld{HostDir: filepath.Join(dir, "host"), RecordPath: filepath.Join(dir, "nfs-calls.jsonl"), LogDir: t.TempDir(), standin: standinBin}
	n.runner = &ProvisioningWorld{PodDir: dir, LogDir: n.LogDir}
	t.Cleanup(func() {
		n.Stop(t)
		_ = os.RemoveAll(dir)
	})

	pod := func(daemonSet string) *podRoot {
		ds, err := w.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, daemonSet, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the operator's DaemonSet %s: %v", daemonSet, err)
		}
		p := &podRoot{dir: filepath.Join(dir, "pods", daemonSet), hostRoot: n.HostDir, spec: ds.Spec.Template.Spec,
			namespace: names.OperandNamespace, podName: daemonSet + "-" + nodeName, nodeName: nodeName}
		// As a kubelet does, wait for the volumes' Secrets and ConfigMaps.
		Eventually(t, DefaultTimeout, "the volumes of a "+daemonSet+" pod", func(ctx context.Context) error {
			return p.materialize(ctx, w.Kube)
		})
		return p
	}
	container := func(p *podRoot, name string) corev1.Container {
		for _, c := range p.spec.Containers {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("pod %s has no container %s", p.podName, name)
		return corev1.Container{}
	}

	forwardDS, driverDS := NFSNodeDaemonSet, NodeDaemonSet
	if opts.CephFS {
		forwardDS, driverDS = CephCSINodeDaemonSet, CephFSNodeDaemonSet
	}
	// The plugin forwarded to first: manila-csi-plugin probes it at start and proxies its capabilities.
	fwd := pod(forwardDS)
	args, env, err := fwd.command(ctx, w.Kube, container(fwd, DriverContainer), nil)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case opts.CephFS && opts.CephCSI:
		n.startCephCSI(t, fwd, container(fwd, DriverContainer), cephCSIBin, args, env)
	case !opts.CephFS && opts.NFS:
		n.startNFSPlugin(t, fwd, container(fwd, DriverContainer), nfsBin, args, env)
	default:
		args = append(args, "--record="+n.RecordPath)
		if !opts.CephFS {
			args = append(args, "--stage-unstage="+strconv.FormatBool(opts.StageUnstage))
		}
		n.runner.start(t, "csi-node-standin", standinBin, args, env)
		n.runner.waitForSocket(t, "csi-node-standin", socketArg(args, "--endpoint"))
	}

	n.driverPod = pod(driverDS)
	n.driver = container(n.driverPod, DriverContainer)
	args, env, err = n.driverPod.command(ctx, w.Kube, n.driver, nil)
	if err != nil {
		t.Fatal(err)
	}
	n.runner.start(t, "manila-csi-plugin", driverBin, args, env)
	// Where the registrar tells the kubelet the driver listens: a host path, so under HostDir. That it
	// is the driver's own --endpoint (through the pod's volumes) is what this wait proves.
	for _, a := range container(n.driverPod, RegistrarContainer).Args {
		if v, ok := strings.CutPrefix(a, "--kubelet-registration-path="); ok {
			n.DriverSocket = filepath.Join(n.HostDir, v)
		}
	}
	if n.DriverSocket == "" {
		t.Fatalf("the registrar of %s names no --kubelet-registration-path", driverDS)
	}
	n.runner.waitForSocket(t, "manila-csi-plugin", n.DriverSocket)
	return n
}

// Calls reads what the NFS stand-in recorded, oldest first.
func (n *NodeWorld) Calls() ([]NodeCall, error) {
	f, err := os.Open(n.RecordPath)
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	var calls []NodeCall
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for lines.Scan() {
		var c NodeCall
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s: %w", n.RecordPath, err)
		}
		calls = append(calls, c)
	}
	return calls, lines.Err()
}

// LastCall returns the NFS stand-in's last recorded call of the method for the volume.
func (n *NodeWorld) LastCall(method, volumeID string) (NodeCall, error) {
	calls, err := n.Calls()
	if err != nil {
		return NodeCall{}, err
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Method == method && calls[i].VolumeID == volumeID {
			return calls[i], nil
		}
	}
	return NodeCall{}, fmt.Errorf("the NFS stand-in received no %s for volume %s (%d calls recorded)", method, volumeID, len(calls))
}

// Log returns the last lines of a process's log ("manila-csi-plugin", "csi-node-standin").
func (n *NodeWorld) Log(name string, lines int) string { return n.runner.Log(name, lines) }

// Stop stops the node's processes (by PID); on a failed test their logs go to the test log. What the
// real ceph-csi left mounted below the node's kubelet directory is unmounted, which ends its
// ceph-fuse daemons, as a node's reboot would.
func (n *NodeWorld) Stop(t testing.TB) {
	n.runner.Stop(t)
	if n.kubeletDir != "" {
		if err := unmountBelow(n.kubeletDir); err != nil {
			t.Errorf("node %s: %v", n.HostDir, err)
		}
		n.kubeletDir = ""
	}
}
