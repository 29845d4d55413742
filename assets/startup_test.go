package assets

import (
	"path"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// The node plugin, the NFS node plugin and the controller start without depending on each other's
// start order: what manila-csi-plugin v1.36.0 needs from the NFS plugin it forwards to is there or
// waited for.

func container(t *testing.T, spec corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range slices.Concat(spec.InitContainers, spec.Containers) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

// argValue returns the value of --name=value in args.
func argValue(t *testing.T, args []string, name string) string {
	t.Helper()
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	t.Fatalf("no --%s in %v", name, args)
	return ""
}

// socketPath is the file of a unix:// CSI endpoint (the driver accepts unix://path and unix:///path).
func socketPath(endpoint string) string {
	return "/" + strings.TrimLeft(strings.TrimPrefix(endpoint, "unix:"), "/")
}

// hostPath maps a path inside container c to the host path of the hostPath volume mounted there.
func hostPath(t *testing.T, spec corev1.PodSpec, c corev1.Container, p string) string {
	t.Helper()
	for _, m := range c.VolumeMounts {
		rel, ok := strings.CutPrefix(p, strings.TrimSuffix(m.MountPath, "/")+"/")
		if !ok {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name == m.Name && v.HostPath != nil {
				return path.Join(v.HostPath.Path, rel)
			}
		}
	}
	t.Fatalf("container %s: %s is on no hostPath volume", c.Name, p)
	return ""
}

// The node plugin's driver container starts only once the NFS node plugin's socket exists on the
// host: the driver probes it once at start and exits after 15 s without an answer.
func TestNodePluginWaitsForNFSSocket(t *testing.T) {
	node := decode[appsv1.DaemonSet](t, NodeDaemonSet).Spec.Template.Spec
	nfs := decode[appsv1.DaemonSet](t, NFSNodeDaemonSet).Spec.Template.Spec

	if len(node.InitContainers) != 1 || node.InitContainers[0].Name != "wait-for-nfs-plugin" {
		t.Fatalf("node plugin init containers = %v, want [wait-for-nfs-plugin]", node.InitContainers)
	}
	wait := node.InitContainers[0]
	driver := container(t, node, "csi-driver")
	nfsDriver := container(t, nfs, "csi-driver")

	forwardTo := hostPath(t, node, driver, socketPath(argValue(t, driver.Args, "fwdendpoint")))
	served := hostPath(t, nfs, nfsDriver, socketPath(argValue(t, nfsDriver.Args, "endpoint")))
	if forwardTo != served {
		t.Errorf("node driver forwards to %s, the NFS node plugin serves %s", forwardTo, served)
	}
	script := strings.Join(wait.Command, " ")
	waitsFor := ""
	for _, m := range wait.VolumeMounts {
		if strings.Contains(script, "-S "+m.MountPath+"/") {
			rel := strings.Fields(strings.SplitN(script, "-S "+m.MountPath+"/", 2)[1])[0]
			waitsFor = hostPath(t, node, wait, m.MountPath+"/"+rel)
		}
	}
	if waitsFor != served {
		t.Errorf("init container waits for %q (script %q), want the NFS socket %s", waitsFor, script, served)
	}
	if wait.Image != driver.Image {
		t.Errorf("init container image %q, want the driver's %q (no extra image to pull)", wait.Image, driver.Image)
	}
	if sc := wait.SecurityContext; sc == nil || sc.Privileged == nil || *sc.Privileged ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("init container security context %+v: want unprivileged with a read-only root", sc)
	}
	if len(nfs.InitContainers) != 0 {
		t.Errorf("the NFS node plugin waits for %v; it depends on nothing", nfs.InitContainers)
	}
}

// Both node DaemonSets tolerate every taint, so a volume can be unmounted on any node, cordoned,
// tainted NoExecute or not.
func TestNodeDaemonSetsTolerateAllTaints(t *testing.T) {
	for _, name := range []string{NodeDaemonSet, NFSNodeDaemonSet, CephFSNodeDaemonSet, CephCSINodeDaemonSet} {
		tolerations := decode[appsv1.DaemonSet](t, name).Spec.Template.Spec.Tolerations
		want := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		if !slices.Equal(tolerations, want) {
			t.Errorf("%s tolerations = %+v, want only %+v (every key and effect)", name, tolerations, want)
		}
	}
}

// The controller keeps the NFS sidecar because manila-csi-plugin v1.36.0 needs it there: --fwdendpoint
// is a required flag in every mode, and the identity service answers Probe (the provisioner's at
// start, the liveness probe's) by forwarding it to that endpoint. The sidecar serves that socket on
// the pod's shared volume and nothing else.
func TestControllerNFSSidecarServesTheDriversForwardEndpoint(t *testing.T) {
	spec := decode[appsv1.Deployment](t, ControllerDeployment).Spec.Template.Spec
	driver := container(t, spec, "csi-driver")
	nfs := container(t, spec, "csi-driver-nfs")
	if argValue(t, driver.Args, "provide-node-service") != "false" {
		t.Errorf("controller driver args %v: want --provide-node-service=false", driver.Args)
	}
	forwardTo := socketPath(argValue(t, driver.Args, "fwdendpoint"))
	served := socketPath(argValue(t, nfs.Args, "endpoint"))
	if forwardTo != served {
		t.Errorf("controller driver forwards to %s, the NFS sidecar serves %s", forwardTo, served)
	}
	volumeAt := func(c corev1.Container, p string) string {
		for _, m := range c.VolumeMounts {
			if path.Dir(p) == path.Clean(m.MountPath) {
				return m.Name
			}
		}
		return ""
	}
	if v := volumeAt(driver, forwardTo); v == "" || v != volumeAt(nfs, served) {
		t.Errorf("the forward socket %s is not on a volume both containers mount (driver %q, sidecar %q)",
			forwardTo, v, volumeAt(nfs, served))
	}
	var nfsContainers []string
	for _, c := range spec.Containers {
		if c.Image == testVars.Images["NFS_DRIVER_IMAGE"] {
			nfsContainers = append(nfsContainers, c.Name)
		}
	}
	if !slices.Equal(nfsContainers, []string{"csi-driver-nfs"}) {
		t.Errorf("NFS containers in the controller = %v, want exactly [csi-driver-nfs]", nfsContainers)
	}
}

// The CephFS node plugin forwards to the CephFS instance's own ceph-csi, never to another ceph-csi on
// the node (ceph-csi's manifests and Helm chart run cephfs.csi.ceph.com, with its socket and its
// ceph-fuse mountinfo records under /var/lib/kubelet/plugins/cephfs.csi.ceph.com): the driver name
// and the socket directory are pkg/names', the init container waits for that socket, ceph-csi keeps
// /csi (where it writes /csi/mountinfo) in that directory, and, on the host network, binds no port.
func TestCephFSNodePluginForwardsToItsOwnCephCSI(t *testing.T) {
	node := decode[appsv1.DaemonSet](t, CephFSNodeDaemonSet).Spec.Template.Spec
	cephCSI := decode[appsv1.DaemonSet](t, CephCSINodeDaemonSet).Spec.Template.Spec
	controller := decode[appsv1.Deployment](t, CephFSControllerDeployment).Spec.Template.Spec
	driver, cephCSIDriver := container(t, node, "csi-driver"), container(t, cephCSI, "csi-driver")

	want := names.CephCSIPluginDir + "/csi.sock"
	if len(names.CephCSIDriverName) > 63 {
		t.Errorf("driver name %s is longer than a CSI driver name may be", names.CephCSIDriverName)
	}
	for _, c := range []corev1.Container{cephCSIDriver, container(t, controller, "csi-driver-cephfs")} {
		if got := argValue(t, c.Args, "drivername"); got != names.CephCSIDriverName {
			t.Errorf("ceph-csi container %s runs as %s, want %s", c.Name, got, names.CephCSIDriverName)
		}
	}
	if got := hostPath(t, node, driver, socketPath(argValue(t, driver.Args, "fwdendpoint"))); got != want {
		t.Errorf("the CephFS node plugin forwards to %s, want %s", got, want)
	}
	if got := hostPath(t, cephCSI, cephCSIDriver, socketPath(argValue(t, cephCSIDriver.Args, "endpoint"))); got != want {
		t.Errorf("ceph-csi serves %s, want %s", got, want)
	}
	if got := hostPath(t, cephCSI, cephCSIDriver, "/csi/mountinfo"); got != names.CephCSIPluginDir+"/mountinfo" {
		t.Errorf("ceph-csi's /csi/mountinfo is %s on the host, want it in %s", got, names.CephCSIPluginDir)
	}
	wait := container(t, node, "wait-for-cephfs-plugin")
	if script := strings.Join(wait.Command, " "); !strings.Contains(script, "-S "+want+" ]") {
		t.Errorf("init container script %q does not wait for %s", script, want)
	}
	if got := hostPath(t, node, wait, want); got != want {
		t.Errorf("init container sees %s at %s on the host", want, got)
	}
	// The host paths ceph-csi shares with every other plugin are the kubelet's and the kernel's; none
	// is another driver's plugin directory.
	shared := []string{"/var/lib/kubelet/pods", "/var/lib/kubelet/plugins", "/sys", "/lib/modules", "/dev", "/run/mount"}
	for _, v := range cephCSI.Volumes {
		ours := v.HostPath != nil && (v.HostPath.Path == names.CephCSIPluginDir || strings.HasPrefix(v.HostPath.Path, names.CephCSIPluginDir+"/"))
		if v.HostPath != nil && !ours && !slices.Contains(shared, v.HostPath.Path) {
			t.Errorf("ceph-csi volume %s is host path %s, outside %v", v.Name, v.HostPath.Path, shared)
		}
	}
	if !cephCSI.HostNetwork {
		t.Fatal("the ceph-csi node plugin left the host network: revisit this test")
	}
	for _, c := range slices.Concat(cephCSI.InitContainers, cephCSI.Containers) {
		if len(c.Ports) > 0 {
			t.Errorf("ceph-csi container %s declares ports %v on the host network", c.Name, c.Ports)
		}
		for _, a := range c.Args {
			// ceph-csi serves HTTP (metrics, pprof) on --metricsport only with these.
			if strings.HasPrefix(a, "--enableprofiling") || strings.HasPrefix(a, "--enablegrpcmetrics") || strings.HasPrefix(a, "--metricsport") {
				t.Errorf("ceph-csi container %s has %s: it would bind a port on the host network", c.Name, a)
			}
		}
	}
}
