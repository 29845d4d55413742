package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CephFSNFSBackend is Manila's own CephFS driver with its NFS helper (OpenStackOptions.NFS): the
// subvolumes of the real Ceph, exported by the world's real NFS-Ganesha.
const CephFSNFSBackend = "cephfs_nfs"

// Ganesha is a real NFS-Ganesha with FSAL_CEPH for one Ceph of the world (hack/nfs.sh start): NFSv3
// and v4 on 127.0.0.1, its exports managed by Manila over the instance's own D-Bus. A Manila started
// with OpenStackOptions.NFS serves it as its cephfs_nfs backend.
type Ganesha struct {
	// Dir holds the instance's config, Manila's export files and the logs.
	Dir string
	// Env is Dir/nfs.env, read by hack/openstack-peer.sh.
	Env string
	// NFSPort and MountPort are the NFS and MOUNT ports on 127.0.0.1 (no portmapper answers for them:
	// a client names both, e.g. mount options port= and mountport=).
	NFSPort, MountPort int
}

// StartGanesha starts a Ganesha exporting ceph's file system on free loopback ports.
func StartGanesha(ceph *Ceph) (*Ganesha, error) {
	if err := requireFiles("NFS-Ganesha (hack/nfs.sh install)", "/usr/bin/ganesha.nfsd", "/usr/lib/x86_64-linux-gnu/ganesha/libfsalceph.so",
		"/usr/sbin/rpcbind", "/usr/bin/dbus-daemon"); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ganesha-")
	if err != nil {
		return nil, err
	}
	g := &Ganesha{Dir: dir, Env: filepath.Join(dir, "nfs.env")}
	if g.NFSPort, err = FreePort(); err != nil {
		return nil, err
	}
	if g.MountPort, err = FreePort(); err != nil {
		return nil, err
	}
	env := []string{"NFS_PORT=" + strconv.Itoa(g.NFSPort), "MNT_PORT=" + strconv.Itoa(g.MountPort)}
	if _, err := runScript(env, "nfs.sh", "start", dir, ceph.Dir); err != nil {
		g.Stop()
		return nil, err
	}
	return g, nil
}

// MountOptions are the options an NFS client of this Ganesha mounts with (hack/nfs/mount.nfs):
// NFSv3, both ports named, no lock manager (NLM is off).
func (g *Ganesha) MountOptions() []string {
	return []string{"nfsvers=3", fmt.Sprintf("port=%d", g.NFSPort), fmt.Sprintf("mountport=%d", g.MountPort), "nolock"}
}

// Exports is what the Ganesha exports now: each export's path, from its ShowExports over D-Bus.
func (g *Ganesha) Exports() ([]string, error) {
	out, err := runScript(nil, "nfs.sh", "dbus", g.Dir, "--print-reply", "--dest=org.ganesha.nfsd",
		"/org/ganesha/nfsd/ExportMgr", "org.ganesha.nfsd.exportmgr.ShowExports")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, l := range strings.Split(out, "\n") {
		// Each export is a struct of its id, then its path as a string; "/" is NFSv4's pseudo root.
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), `string "`); ok && strings.HasPrefix(p, "/") && p != `/"` {
			paths = append(paths, strings.TrimSuffix(p, `"`))
		}
	}
	return paths, nil
}

// Log is the last lines of Ganesha's log.
func (g *Ganesha) Log(lines int) string {
	b, _ := os.ReadFile(filepath.Join(g.Dir, "log", "ganesha.log"))
	return tail(string(b), lines)
}

// Stop stops Ganesha, its rpcbind and D-Bus, and removes the instance.
func (g *Ganesha) Stop() {
	if out, err := runScript(nil, "nfs.sh", "stop", g.Dir); err != nil {
		fmt.Fprintf(os.Stderr, "stopping ganesha: %v\n%s", err, out)
		return
	}
	_ = os.RemoveAll(g.Dir)
}
