package framework

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// nfsMountHelper is where mount(8) looks for the NFS helper it execs for `mount -t nfs`.
const nfsMountHelper = "/sbin/mount.nfs"

// startNFSPlugin runs the real csi-driver-nfs as container c of the NFS node pod: its rendered
// arguments, in a mount namespace of its own where hack/nfs/mount.nfs is the NFS mount helper, and
// the node's kubelet directory a shared mount, as the DaemonSet's Bidirectional mount of the pods
// directory, so its publish mounts are seen here.
func (n *NodeWorld) startNFSPlugin(t testing.TB, pod *podRoot, c corev1.Container, binary string, args, env []string) {
	t.Helper()
	n.kubeletDir = filepath.Join(n.HostDir, "var/lib/kubelet")
	for _, dir := range []string{filepath.Join(n.kubeletDir, "plugins"), filepath.Join(n.kubeletDir, "pods")} {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	scratch, err := os.MkdirTemp(n.runner.PodDir, "mnt-")
	if err != nil {
		t.Fatal(err)
	}
	// No container volume is needed at its mountPath (the kubelet names host paths, the arguments were
	// moved to them); the helper is the one file the container sees in place of the machine's.
	path, wrapped, _ := pod.inContainerMounts(c, scratch, binary, args)
	wrapped = mountBeforeCommand(wrapped, "ro", script("nfs/mount.nfs"), nfsMountHelper)
	env = append(env, "CONTAINER_MOUNTS_SHARED="+n.kubeletDir, "FUSE_NFS="+filepath.Join(filepath.Dir(binary), "fuse-nfs"))
	n.nfsPlugin = pluginStart{path: path, args: wrapped, env: env, socket: socketArg(args, "--endpoint")}
	n.runner.start(t, "nfsplugin", path, wrapped, env)
	n.runner.waitForSocket(t, "nfsplugin", n.nfsPlugin.socket)
}

// RestartNFSPlugin ends the node's real csi-driver-nfs as a restart of its pod ends its container
// (the fuse-nfs daemons of its mounts are not the container's: they run on, as a kernel mount stays)
// and starts it again with the same command.
func (n *NodeWorld) RestartNFSPlugin(t testing.TB) {
	t.Helper()
	if n.nfsPlugin.path == "" {
		t.Fatal("the node runs no real csi-driver-nfs")
	}
	n.runner.stopProcess("nfsplugin")
	if err := os.Remove(n.nfsPlugin.socket); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n.runner.start(t, "nfsplugin", n.nfsPlugin.path, n.nfsPlugin.args, n.nfsPlugin.env)
	n.runner.waitForSocket(t, "nfsplugin", n.nfsPlugin.socket)
}

// MountsAt is what is mounted at path (mounts stacked there, oldest first), as /proc/self/mountinfo
// shows it to this process.
func (n *NodeWorld) MountsAt(path string) ([]Mount, error) {
	all, err := mountsBelow(path)
	if err != nil {
		return nil, err
	}
	var out []Mount
	for _, m := range all {
		if m.point == path {
			out = append(out, Mount{FSType: m.fsType, Source: m.source})
		}
	}
	return out, nil
}

// mountBeforeCommand adds one mount (mode, source, destination) to a hack/container-mounts.sh command
// line, before its "--".
func mountBeforeCommand(wrapped []string, mode, src, dst string) []string {
	i := slices.Index(wrapped, "--")
	if i < 0 {
		return wrapped
	}
	return slices.Concat(wrapped[:i:i], []string{mode, src, dst}, wrapped[i:])
}
