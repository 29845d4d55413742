package framework

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Ceph is a real one-node Ceph of the test world (hack/ceph.sh, Debian's Pacific): a mon on
// 127.0.0.1 speaking msgr v1, a mgr with its volumes module, an OSD on memstore, an MDS and one
// CephFS file system, with the cephx user Manila's CephFS driver connects as. A Manila started with
// OpenStackOptions.Ceph serves it as its cephfs_native backend.
type Ceph struct {
	// Dir holds the cluster's configuration, keyrings, state and logs.
	Dir string
	// Env is Dir/cluster.env, read by hack/openstack-peer.sh.
	Env string
	// Monitor is the mon's address (ip:port), as Manila names it in export locations.
	Monitor string
	// FS is the CephFS file system's name.
	FS string
	// FSID is the cluster's fsid.
	FSID string
}

// CephVersion is the Ceph release the world runs, as `ceph --version` prints it.
func CephVersion() (string, error) {
	out, err := exec.Command("ceph", "--version").Output()
	return strings.TrimSpace(string(out)), err
}

// StartCeph configures and starts a new Ceph cluster with its mon on a free loopback port.
func StartCeph() (*Ceph, error) {
	if err := requireFiles("Ceph (hack/ceph.sh install)", "/usr/bin/ceph-mon", "/usr/bin/ceph-mgr",
		"/usr/bin/ceph-osd", "/usr/bin/ceph-mds", "/usr/bin/ceph-fuse"); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ceph-")
	if err != nil {
		return nil, err
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	c := &Ceph{Dir: dir, Env: filepath.Join(dir, "cluster.env")}
	if _, err := runScript([]string{"CEPH_MON_PORT=" + strconv.Itoa(port)}, "ceph.sh", "start", dir); err != nil {
		c.Stop()
		return nil, err
	}
	env, err := readEnvFile(c.Env)
	if err != nil {
		c.Stop()
		return nil, err
	}
	c.Monitor, c.FS, c.FSID = env["CEPH_MON"], env["CEPH_FS"], env["CEPH_FSID"]
	return c, nil
}

// Stop stops the cluster's daemons and removes its state.
func (c *Ceph) Stop() {
	if out, err := runScript(nil, "ceph.sh", "stop", c.Dir); err != nil {
		fmt.Fprintf(os.Stderr, "stopping ceph: %v\n%s", err, out)
		return
	}
	_ = os.RemoveAll(c.Dir)
}

// StopMDS stops the MDS: the file system has no active MDS until StartMDS.
func (c *Ceph) StopMDS() error { _, err := runScript(nil, "ceph.sh", "stop-mds", c.Dir); return err }

// StartMDS starts the MDS again and returns once the file system is active.
func (c *Ceph) StartMDS() error { _, err := runScript(nil, "ceph.sh", "start-mds", c.Dir); return err }

// Admin runs the ceph CLI as client.admin and returns its standard output.
func (c *Ceph) Admin(args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{script("ceph.sh"), "ceph", c.Dir}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ceph %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// ReadFile reads a file of the file system (path from its root) as client.admin, through a ceph-fuse
// mount of the file's directory made for this read in a mount namespace of its own and unmounted
// after it: the file as Ceph holds it, whatever client wrote it.
func (c *Ceph) ReadFile(path string) (string, error) {
	mnt, err := os.MkdirTemp("", "ceph-read-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(mnt)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const read = `ceph-fuse --conf "$1" --name client.admin -r "$2" "$3" >/dev/null || exit 1
trap 'umount "$3"' EXIT
cat "$3/$4"`
	cmd := exec.CommandContext(ctx, "unshare", "--mount", "--propagation", "private", "sh", "-c", read, "sh",
		filepath.Join(c.Dir, "ceph.conf"), filepath.Dir(path), mnt, filepath.Base(path))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("reading %s through ceph-fuse: %w: %s", path, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// SubvolumePath is the path of a subvolume of the file system (a Manila share's ID names its
// subvolume), from the volumes module itself.
func (c *Ceph) SubvolumePath(name string) (string, error) {
	out, err := c.Admin("fs", "subvolume", "getpath", c.FS, name)
	return strings.TrimSpace(out), err
}

// Subvolumes lists the names of the file system's subvolumes outside any group.
func (c *Ceph) Subvolumes() ([]string, error) {
	out, err := c.Admin("fs", "subvolume", "ls", c.FS, "--format", "json")
	if err != nil {
		return nil, err
	}
	var list []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for _, s := range list {
		names = append(names, s.Name)
	}
	return names, nil
}

// Log returns the last lines of a daemon's log ("mon.a", "mgr.x", "osd.0", "mds.a").
func (c *Ceph) Log(daemon string, lines int) string {
	b, err := os.ReadFile(filepath.Join(c.Dir, "log", daemon+".log"))
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// readEnvFile reads KEY=VALUE lines.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	env := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), "="); ok {
			env[k] = v
		}
	}
	return env, s.Err()
}

// ListeningPorts are the TCP ports the cluster's daemons (mon, mgr, OSD, MDS) listen on: what a client
// dials, at the addresses the mon's maps give it. A daemon restarted since may listen elsewhere.
func (c *Ceph) ListeningPorts() ([]int, error) {
	pidFiles, err := filepath.Glob(filepath.Join(c.Dir, "run", "*.pid"))
	if err != nil {
		return nil, err
	}
	sockets := map[string]bool{}
	for _, f := range pidFiles {
		pid, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		fdDir := filepath.Join("/proc", strings.TrimSpace(string(pid)), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			return nil, fmt.Errorf("the descriptors of the daemon of %s: %w", filepath.Base(f), err)
		}
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && strings.HasPrefix(target, "socket:[") {
				sockets[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
			}
		}
	}
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return nil, err
	}
	return listeningPortsOf(string(table), sockets), nil
}

// listeningPortsOf are the ports of the listening sockets of a /proc/net/tcp table whose inodes are
// in sockets.
func listeningPortsOf(table string, sockets map[string]bool) []int {
	var ports []int
	for _, line := range strings.Split(table, "\n") {
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !sockets[f[9]] {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if port, err := strconv.ParseInt(hexPort, 16, 32); ok && err == nil {
			ports = append(ports, int(port))
		}
	}
	return ports
}
