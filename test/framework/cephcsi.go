package framework

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
)

// Fixed paths of ceph-csi's code. cephCSIKeysDir is where it writes each stage call's cephx key for
// ceph-fuse; in the DaemonSet a memory emptyDir, here the machine's own directory: the overlays of
// hack/container-mounts.sh cannot cover /tmp, which holds the node's HostDir. cephCSISocketDir is
// the socket volume's mountPath, where it keeps a record of each staged volume (mountinfo/) for a
// restarted plugin; the machine gets an empty directory of that name for the node's socket
// directory to be mounted on.
const (
	cephCSIKeysDir   = "/tmp/csi/keys"
	cephCSISocketDir = "/csi"
)

// startCephCSI runs the real ceph-csi as container c of the ceph-csi node pod: its rendered
// arguments, its /etc volumes (ceph.conf, ceph-csi's cluster list) at their mountPaths, and the
// node's kubelet directory a shared mount, as the DaemonSet's Bidirectional mounts.
func (n *NodeWorld) startCephCSI(t testing.TB, pod *podRoot, c corev1.Container, binary string, args, env []string) {
	t.Helper()
	n.kubeletDir = filepath.Join(n.HostDir, "var/lib/kubelet")
	for _, dir := range []string{filepath.Join(n.kubeletDir, "plugins"), filepath.Join(n.kubeletDir, "pods")} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{cephCSIKeysDir, cephCSISocketDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	scratch, err := os.MkdirTemp(n.runner.PodDir, "mnt-")
	if err != nil {
		t.Fatal(err)
	}
	// In a pod /tmp is the container's own; here the nodes share the machine's, so each gets its
	// own csi-addons socket (ceph-csi's default is /tmp/csi-addons.sock).
	args = append(args, "--csi-addons-endpoint=unix://"+filepath.Join(n.runner.PodDir, "csi-addons.sock"))
	path, wrapped, ok := pod.inContainerMounts(c, scratch, binary, args, "/etc", cephCSISocketDir)
	if !ok {
		t.Fatalf("the ceph-csi container %s mounts nothing below /etc", c.Name)
	}
	n.cephCSI = pluginStart{path: path, args: wrapped, env: append(env, "CONTAINER_MOUNTS_SHARED="+n.kubeletDir),
		socket: socketArg(args, "--endpoint")}
	n.runner.start(t, "cephcsi", n.cephCSI.path, n.cephCSI.args, n.cephCSI.env)
	n.runner.waitForSocket(t, "cephcsi", n.cephCSI.socket)
}

// pluginStart is how a real node plugin was started (startCephCSI, startNFSPlugin), for its restart.
type pluginStart struct {
	path      string
	args, env []string
	socket    string
}

// RestartCephCSI ends the node's real ceph-csi as a restart of its pod does, the process and the
// ceph-fuse daemons it started, which end with its container (their mounts stay, broken: "transport
// endpoint is not connected"), and starts it again with the same command.
func (n *NodeWorld) RestartCephCSI(t testing.TB) {
	t.Helper()
	if n.cephCSI.path == "" {
		t.Fatal("the node runs no real ceph-csi")
	}
	n.runner.stopProcess("cephcsi")
	if err := killCephFuse(n.HostDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(n.cephCSI.socket); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n.runner.start(t, "cephcsi", n.cephCSI.path, n.cephCSI.args, n.cephCSI.env)
	n.runner.waitForSocket(t, "cephcsi", n.cephCSI.socket)
}

// killCephFuse kills the ceph-fuse daemons whose mount point is below dir and waits until they are gone.
func killCephFuse(dir string) error {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(string(cmdline), "\x00")
		if len(argv) > 1 && filepath.Base(argv[0]) == "ceph-fuse" && strings.HasPrefix(argv[1], dir+"/") {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for unix.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				return fmt.Errorf("ceph-fuse %d still runs after SIGKILL", pid)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// Mount is one mount table entry.
type Mount struct{ FSType, Source string }

// Mounts lists the mount points below the node's HostDir, as /proc/self/mountinfo shows them to this
// process.
func (n *NodeWorld) Mounts() (map[string]Mount, error) {
	all, err := mountsBelow(n.HostDir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Mount, len(all))
	for _, m := range all {
		out[m.point] = Mount{FSType: m.fsType, Source: m.source}
	}
	return out, nil
}

type mountPoint struct{ point, fsType, source string }

// mountsBelow reads /proc/self/mountinfo for the mounts at or below dir.
func mountsBelow(dir string) ([]mountPoint, error) { return mountsBelowIn("/proc/self/mountinfo", dir) }

// mountsBelowIn lists the mount points at or below dir of the mount table mountinfo.
func mountsBelowIn(mountinfo, dir string) ([]mountPoint, error) {
	f, err := os.Open(mountinfo)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountPoint
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if len(fields) < 5 || sep < 0 || sep+2 >= len(fields) {
			continue
		}
		p := fields[4]
		if p == dir || strings.HasPrefix(p, dir+"/") {
			out = append(out, mountPoint{point: p, fsType: fields[sep+1], source: fields[sep+2]})
		}
	}
	return out, s.Err()
}

// unmountBelow detaches every mount at or below dir, deepest first.
func unmountBelow(dir string) error {
	mounts, err := mountsBelow(dir)
	if err != nil {
		return err
	}
	sort.Slice(mounts, func(i, j int) bool { return len(mounts[i].point) > len(mounts[j].point) })
	for _, m := range mounts {
		if err := unix.Unmount(m.point, unix.MNT_DETACH); err != nil && err != unix.EINVAL && err != unix.ENOENT {
			return err
		}
	}
	return nil
}
