package framework

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RealNode is a real node of the test world: Debian's containerd and runc and a kubelet v1.36.2 in a
// mount, PID and network namespace of their own (hack/node.sh run), registered with the control plane
// under the node identity system:node:<Name>. Its name is a loopback address (127.0.0.N), which the
// kubelet reports as the node's InternalIP. Its host-network pods bind the node's own loopback (the
// operator's node DaemonSets' fixed ports collide with nothing) and reach of the machine only the ports
// relayed into it: the API server's (also at the kubernetes Service's ClusterIP, for the pods'
// in-cluster clients), and those Relay adds. Its OpenStack metadata service (on
// 169.254.169.254 in its namespace) gives InstanceID.
type RealNode struct {
	Name       string
	Dir        string
	InstanceID string
	proc       *Process
	netns      string
	relays     []net.Listener
	// kubeletPort is the kubelet's API port on the node's address.
	kubeletPort int
}

// KubeletBinary is the kubelet `make test-deps` builds beside kube-apiserver.
func KubeletBinary() string { return filepath.Join(ControlPlaneBinDir(), "kubelet") }

// AgnhostBinary is Kubernetes' test image binary (hack/k8s-binaries.sh).
func AgnhostBinary() string { return filepath.Join(ControlPlaneBinDir(), "agnhost") }

// StartRealNode starts a real node named by address on cp, with the pause, busybox and agnhost images
// (and the storage suite's shell images) and images, each made under its name (NodeImage); the test's
// cleanup stops it. It returns once the kubelet runs (the node's registration and readiness are the
// test's to wait for).
func (cp *ControlPlane) StartRealNode(t testing.TB, address string, images map[string]NodeImage) *RealNode {
	t.Helper()
	pause := filepath.Join(ProvisioningBinDir(), "pause")
	if err := requireFiles("real node", KubeletBinary(), AgnhostBinary(), pause, "/usr/bin/containerd", "/usr/sbin/runc", "/bin/busybox", "/usr/lib/cni/loopback"); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "manila-node-")
	if err != nil {
		t.Fatal(err)
	}
	n := &RealNode{Name: address, Dir: dir, InstanceID: instanceID(address)}
	if err := cp.bindNodes(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The kubernetes Service: its ClusterIP is what the kubelet gives pods as KUBERNETES_SERVICE_HOST,
	// where their in-cluster clients dial the API server.
	apiService, err := cp.Kube.CoreV1().Services("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
	if err != nil || len(apiService.Spec.Ports) == 0 {
		t.Fatalf("the kubernetes Service: %v", err)
	}
	if err := n.writeConfig(cp); err != nil {
		t.Fatal(err)
	}
	busybox, err := busyboxFiles()
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range append([]string{BusyboxImage}, SuiteShellImages...) {
		if err := writeImageArchive(filepath.Join(dir, "images", fmt.Sprintf("shell-%d.tar", i)), name, nil, busybox); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeImageArchive(filepath.Join(dir, "images", "pause.tar"), PauseImage, []string{"/pause"}, []imageFile{{Dest: "pause", Src: pause}}); err != nil {
		t.Fatal(err)
	}
	images = maps.Clone(images)
	if images == nil {
		images = map[string]NodeImage{}
	}
	images[AgnhostImage] = agnhostImage()
	i := 0
	for name, img := range images {
		entry, files, err := img.files()
		if err == nil {
			err = writeImageArchive(filepath.Join(dir, "images", fmt.Sprintf("image-%d.tar", i)), name, entry, files)
		}
		if err != nil {
			t.Fatalf("image %s of %s: %v", name, img.Binary, err)
		}
		i++
	}
	// --kill-child: should the test process die, the node's PID 1 goes with unshare, and with it
	// every process of the node.
	cmd := exec.Command("unshare", "--mount", "--propagation", "slave", "--pid", "--net", "--fork", "--mount-proc", "--kill-child",
		"bash", script("node.sh"), "run", dir, KubeletBinary())
	cmd.Env = append(os.Environ(), "NODE_NAME="+address)
	out, err := os.Create(filepath.Join(dir, "node.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	n.proc, err = StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tasks := n.tasks()
		n.Stop()
		for _, l := range n.relays {
			_ = l.Close()
		}
		if err := removeCgroups(tasks); err != nil {
			t.Errorf("removing the cgroups of node %s: %v", address, err)
		}
		if !t.Failed() {
			_ = os.RemoveAll(dir)
		} else {
			t.Logf("the real node %s kept its directory %s (kubelet.log, containerd.log, node.log)", address, dir)
		}
	})
	if n.netns, err = n.waitNetNS(); err != nil {
		t.Fatal(err)
	}
	// The node's loopback up (127.0.0.1 exists only then) and the kubernetes Service's ClusterIP on it,
	// before any relay listens there (hack/node.sh brings it up too, but later).
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", apiService.Spec.ClusterIP + "/32", "dev", "lo"}} {
		if out, err := exec.Command("nsenter", append([]string{"--net=" + n.netns, "ip"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v in node %s: %v: %s", args, address, err, out)
		}
	}
	u, err := url.Parse(cp.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	n.Relay(t, port)
	// What kube-proxy would do for the kubernetes Service on this node: its ClusterIP, an address of
	// the node's loopback, relayed to the API server.
	n.relay(t, net.JoinHostPort(apiService.Spec.ClusterIP, strconv.Itoa(int(apiService.Spec.Ports[0].Port))), u.Host)
	// The API server dials the kubelet at the node's InternalIP and the port it reports.
	n.relayOut(t, net.JoinHostPort(address, strconv.Itoa(n.kubeletPort)))
	return n
}

// Relay makes port of this machine's 127.0.0.1 reachable at the same port of the node's loopback.
func (n *RealNode) Relay(t testing.TB, port int) {
	t.Helper()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	n.relay(t, addr, addr)
}

// relay forwards the connections to listen, an address inside the node's network namespace, to
// target, an address of this machine.
func (n *RealNode) relay(t testing.TB, listen, target string) {
	t.Helper()
	l, err := listenInNetNS(n.netns, listen)
	if err != nil {
		t.Fatalf("relaying %s into node %s: %v", target, n.Name, err)
	}
	n.serveRelay(l, func() (net.Conn, error) { return net.Dial("tcp", target) })
}

// relayOut forwards the connections to addr on this machine to addr inside the node's network
// namespace: how the API server reaches the kubelet (exec, logs, port-forward).
func (n *RealNode) relayOut(t testing.TB, addr string) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("relaying %s out of node %s: %v", addr, n.Name, err)
	}
	n.serveRelay(l, func() (net.Conn, error) { return dialInNetNS(n.netns, addr) })
}

// serveRelay copies each connection l accepts to one dial makes, both ways, until l is closed (the
// node's cleanup closes every relay).
func (n *RealNode) serveRelay(l net.Listener, dial func() (net.Conn, error)) {
	n.relays = append(n.relays, l)
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := dial()
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in); _ = out.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
}

// waitNetNS is the path of the node's network namespace once unshare has made it (unshare enters it
// itself before it forks the node's PID 1).
func (n *RealNode) waitNetNS() (string, error) {
	own, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return "", err
	}
	path := fmt.Sprintf("/proc/%d/ns/net", n.proc.Cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ns, err := os.Readlink(path); err == nil && ns != own {
			return path, nil
		}
		select {
		case <-n.proc.Exited:
			return "", fmt.Errorf("the node's unshare exited: %v (see %s)", n.proc.Err, filepath.Join(n.Dir, "node.log"))
		default:
		}
	}
	return "", fmt.Errorf("no network namespace of the node's own at %s", path)
}

// listenInNetNS listens on addr in the network namespace at nsPath, while the connections it accepts
// are served from this process's namespace.
func listenInNetNS(nsPath, addr string) (net.Listener, error) {
	var l net.Listener
	err := inNetNS(nsPath, func() (err error) { l, err = net.Listen("tcp", addr); return err })
	return l, err
}

// dialInNetNS connects to addr from the network namespace at nsPath.
func dialInNetNS(nsPath, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNetNS(nsPath, func() (err error) { c, err = net.Dial("tcp", addr); return err })
	return c, err
}

// inNetNS runs open, which makes sockets, in the network namespace at nsPath: from a thread of its
// own that enters it and is never given back (the goroutine locks it and ends, so the thread ends
// too). A socket stays in the namespace it was made in, wherever it is used after.
func inNetNS(nsPath string, open func() error) error {
	ch := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			ch <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			ch <- err
			return
		}
		ch <- open()
	}()
	return <-ch
}

// instanceID is the node's instance ID as its metadata service gives it: a UUID made from its address.
func instanceID(address string) string {
	sum := sha256.Sum256([]byte("manila-test-node/" + address))
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Stop ends the node: SIGTERM to its PID 1 stops the kubelet and containerd, and its exit ends every
// process left in the node's PID namespace (the containers' shims and processes).
func (n *RealNode) Stop() {
	select {
	case <-n.proc.Exited:
		return
	default:
	}
	if pid, ok := n.initPID(); ok {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		select {
		case <-n.proc.Exited:
			return
		case <-time.After(30 * time.Second):
		}
	}
	_ = n.proc.Cmd.Process.Kill()
	<-n.proc.Exited
}

// Mounts lists the mount points at or below dir in the node's own mount table (its PID 1's), e.g.
// what the kubelet and the node plugins mounted under /var/lib/kubelet.
func (n *RealNode) Mounts(dir string) (map[string]Mount, error) {
	pid, ok := n.initPID()
	if !ok {
		return nil, fmt.Errorf("node %s is not running", n.Name)
	}
	all, err := mountsBelowIn(fmt.Sprintf("/proc/%d/mountinfo", pid), dir)
	if err != nil {
		return nil, err
	}
	out := map[string]Mount{}
	for _, m := range all {
		out[m.point] = Mount{FSType: m.fsType, Source: m.source}
	}
	return out, nil
}

// Processes lists the running processes of the node's that name its directory (containerd, its shims,
// the kubelet, hack/node.sh), as "pid command".
func (n *RealNode) Processes() []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), n.Dir) {
			continue
		}
		out = append(out, e.Name()+" "+strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "))
	}
	return out
}

// tasks are the IDs of the containers and sandboxes containerd runs for the node now: its runc shims'
// state directories.
func (n *RealNode) tasks() []string {
	entries, _ := os.ReadDir(filepath.Join(n.Dir, "containerd/state/io.containerd.runtime.v2.task/k8s.io"))
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

// removeCgroups removes the cgroups runc made for the tasks (containerd puts every pod's under
// k8s.io/<task> of each hierarchy: the kubelet without its QoS hierarchy names no parent) once their
// processes are gone; a task the node stopped itself has none left.
func removeCgroups(tasks []string) error {
	var last error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		last = nil
		for _, id := range tasks {
			dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", "k8s.io", id))
			for _, d := range dirs {
				if err := unix.Rmdir(d); err != nil && !errors.Is(err, unix.ENOENT) {
					last = fmt.Errorf("%s: %w", d, err)
				}
			}
		}
		if last == nil || time.Now().After(deadline) {
			return last
		}
	}
}

// initPID is the node's PID 1 as this machine numbers it: unshare's one child.
func (n *RealNode) initPID() (int, bool) {
	pid := n.proc.Cmd.Process.Pid
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(b))
	if len(fields) != 1 {
		return 0, false
	}
	child, err := strconv.Atoi(fields[0])
	return child, err == nil
}

// bindNodes grants the group system:nodes the ClusterRole system:node, as the Node authorizer and
// the node bootstrap do on a cluster (this API server authorizes by RBAC alone), and the API server's
// kubelet client system:kubelet-api-admin, as a cluster's installer does.
func (cp *ControlPlane) bindNodes(ctx context.Context) error {
	for name, b := range map[string]struct {
		role    string
		subject rbacv1.Subject
	}{
		"test-world:nodes": {"system:node", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:nodes"}},
		// The kubelets authorize the API server's requests (exec, logs) through the API server.
		"test-world:kubelet-api-admin": {"system:kubelet-api-admin", rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "kube-apiserver-kubelet-client"}},
	} {
		_, err := cp.Kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: b.role},
			Subjects:   []rbacv1.Subject{b.subject},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// writeConfig writes the node's client certificate and kubeconfig, containerd's and the kubelet's
// configuration, its CNI configuration (hack/node/podnet: a pod network that reaches nothing outside
// each pod) and its metadata service's meta_data.json.
func (n *RealNode) writeConfig(cp *ControlPlane) error {
	d := n.Dir
	for _, sub := range []string{"images", "cni/bin", "cni/conf", "pod-logs", "volume-plugins", "serving-certs", "metadata/openstack/latest"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o755); err != nil {
			return err
		}
	}
	certs := filepath.Join(cp.StateDir, "certs")
	certPEM, keyPEM, err := signClientCert(filepath.Join(certs, "ca.crt"), filepath.Join(certs, "ca.key"), "system:node:"+n.Name, "system:nodes")
	if err != nil {
		return err
	}
	caPEM, err := os.ReadFile(filepath.Join(certs, "ca.crt"))
	if err != nil {
		return err
	}
	if n.kubeletPort, err = FreePort(); err != nil {
		return err
	}
	loopback, err := os.ReadFile("/usr/lib/cni/loopback")
	if err != nil {
		return err
	}
	b64 := base64.StdEncoding.EncodeToString
	files := map[string]string{
		"ca.crt": string(caPEM),
		"kubeconfig": fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: cp, cluster: {server: %q, certificate-authority-data: %s}}]
users: [{name: node, user: {client-certificate-data: %s, client-key-data: %s}}]
contexts: [{name: cp, context: {cluster: cp, user: node}}]
current-context: cp
`, cp.Config.Host, b64(caPEM), b64(certPEM), b64(keyPEM)),
		"cni/conf/10-podnet.conflist":              `{"cniVersion": "0.4.0", "name": "podnet", "plugins": [{"type": "podnet"}]}`,
		"metadata/openstack/latest/meta_data.json": fmt.Sprintf(`{"uuid": %q, "name": %q, "availability_zone": "nova"}`, n.InstanceID, n.Name),
		"containerd.toml":                          fmt.Sprintf(containerdConfig, d),
		"kubelet.yaml":                             fmt.Sprintf(kubeletConfig, n.Name, n.kubeletPort, d),
	}
	for name, body := range files {
		mode := os.FileMode(0o600)
		if strings.HasPrefix(name, "metadata/") {
			mode = 0o644
		}
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), mode); err != nil {
			return err
		}
	}
	podnet, err := os.ReadFile(script("node/podnet"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d, "cni/bin/podnet"), podnet, 0o755); err != nil {
		return err
	}
	// containerd brings up each pod's lo itself, with this plugin.
	return os.WriteFile(filepath.Join(d, "cni/bin/loopback"), loopback, 0o755)
}

// containerdConfig: every path of containerd's under the node's directory, nothing listening but
// the CRI stream server on 127.0.0.1, and restrict_oom_score_adj (runc cannot lower a score here).
const containerdConfig = `version = 2
root = "%[1]s/containerd/root"
state = "%[1]s/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "%[1]s/containerd.sock"
[ttrpc]
  address = "%[1]s/containerd.sock.ttrpc"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "%[1]s/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  disable_apparmor = true
  disable_hugetlb_controller = true
  restrict_oom_score_adj = true
  sandbox_image = "` + PauseImage + `"
  netns_mounts_under_state_dir = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "%[1]s/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "%[1]s/cni/bin"
    conf_dir = "%[1]s/cni/conf"
`

// kubeletConfig: cgroup v1 through cgroupfs without the QoS hierarchy (this machine's processes may
// not set every cgroup the kubelet's node allocatable needs), no swap check, no read-only or healthz
// port, x509 client authentication from the control plane's CA, and image garbage collection off:
// the node's images are made here and can never be pulled again.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %[1]s
port: %[2]d
readOnlyPort: 0
healthzPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %[3]s/ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
failCgroupV1: false
containerRuntimeEndpoint: unix://%[3]s/containerd.sock
resolvConf: ""
podLogsDir: %[3]s/pod-logs
volumePluginDir: %[3]s/volume-plugins
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "1Mi", nodefs.available: "1%%", imagefs.available: "1%%", nodefs.inodesFree: "1%%"}
protectKernelDefaults: false
`

// signClientCert issues a client certificate (ECDSA P-256, a day) for the user cn in group from the
// CA's PEM files.
func signClientCert(caCertFile, caKeyFile, cn, group string) (certPEM, keyPEM []byte, err error) {
	ca, err := tls.LoadX509KeyPair(caCertFile, caKeyFile)
	if err != nil {
		return nil, nil, err
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		return nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: []string{group}},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
