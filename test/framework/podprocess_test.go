package framework

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A container's rendered arguments run as a process here: $(VAR) from the env (fieldRef included),
// endpoints and paths moved under the pod's volumes, overridden flags replaced, the rest untouched.
func TestPodRootCommand(t *testing.T) {
	dir := t.TempDir()
	c := corev1.Container{
		Name: "csi-driver",
		Args: []string{
			"--nodeid=$(NODE_ID)", "--endpoint=unix://plugin/csi.sock", "--fwdendpoint=unix:///plugin/nfs.sock",
			"--config=/etc/cfg/cloud.conf", "--ca=/etc/pki/tls/ca.pem", "--http-endpoint=localhost:8212", "--v=2", "$(UNSET)",
		},
		Env: []corev1.EnvVar{
			{Name: "NODE_ID", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}},
			{Name: "TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
				LocalObjectReference: corev1.LocalObjectReference{Name: "s"}, Key: "token"}}},
			{Name: "GREETING", Value: "hello $(NODE_ID)"},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "socket-dir", MountPath: "/plugin"},
			{Name: "cfg", MountPath: "/etc/cfg/"},
		},
	}
	kube := fake.NewClientset(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns"},
		Data: map[string][]byte{"token": []byte("t0k")}})
	pod := &podRoot{dir: dir, namespace: "ns", nodeName: "node-1",
		spec: corev1.PodSpec{Containers: []corev1.Container{c}, Volumes: []corev1.Volume{
			{Name: "socket-dir", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			{Name: "cfg", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
		}}}
	if err := pod.materialize(context.Background(), kube); err != nil {
		t.Fatal(err)
	}
	args, env, err := pod.command(context.Background(), kube, c, map[string]string{"--http-endpoint": "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	vol := func(name, rest string) string { return filepath.Join(dir, "volumes", name, rest) }
	want := []string{
		"--nodeid=node-1", "--endpoint=unix://" + vol("socket-dir", "csi.sock"), "--fwdendpoint=unix://" + vol("socket-dir", "nfs.sock"),
		"--config=" + vol("cfg", "cloud.conf"), "--ca=/etc/pki/tls/ca.pem", "--http-endpoint=127.0.0.1:9", "--v=2", "$(UNSET)",
	}
	if !slices.Equal(args, want) {
		t.Errorf("args\n got %q\nwant %q", args, want)
	}
	for _, e := range []string{"NODE_ID=node-1", "TOKEN=t0k", "GREETING=hello node-1"} {
		if !slices.Contains(env, e) {
			t.Errorf("env %q lacks %s", env, e)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "volumes", "cfg", "token")); err != nil || string(b) != "t0k" {
		t.Errorf("the Secret volume's key: %q, %v", b, err)
	}
}

// With a node directory, hostPath volumes of two pods are one directory (a socket one pod serves is
// where the other connects, as on a node); other volumes stay private to each pod; without one, a
// hostPath volume is private too.
func TestPodRootHostPathVolumes(t *testing.T) {
	hostPath := func(name, path string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}
	}
	secret := corev1.Volume{Name: "creds", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}
	driver := &podRoot{dir: "/n/pods/driver", hostRoot: "/n/host", spec: corev1.PodSpec{Volumes: []corev1.Volume{
		hostPath("fwd-plugin-dir", "/var/lib/kubelet/plugins/csi-nfsplugin"), secret}}}
	nfs := &podRoot{dir: "/n/pods/nfs", hostRoot: "/n/host", spec: corev1.PodSpec{Volumes: []corev1.Volume{
		hostPath("plugin-dir", "/var/lib/kubelet/plugins/csi-nfsplugin"), secret}}}
	private := &podRoot{dir: "/p", spec: driver.spec}
	for _, tc := range []struct {
		pod    *podRoot
		volume string
		want   string
	}{
		{driver, "fwd-plugin-dir", "/n/host/var/lib/kubelet/plugins/csi-nfsplugin"},
		{nfs, "plugin-dir", "/n/host/var/lib/kubelet/plugins/csi-nfsplugin"},
		{driver, "creds", "/n/pods/driver/volumes/creds"},
		{nfs, "creds", "/n/pods/nfs/volumes/creds"},
		{private, "fwd-plugin-dir", "/p/volumes/fwd-plugin-dir"},
	} {
		if got := tc.pod.volumeDir(tc.volume); got != tc.want {
			t.Errorf("%s: volume %s at %s, want %s", tc.pod.dir, tc.volume, got, tc.want)
		}
	}
}

// The driver's mounts below /etc go to hack/container-mounts.sh at their mountPaths, shallowest
// first, read-only as the kubelet mounts them (Secret and ConfigMap volumes always); the others, and
// the process's own arguments, are left as they are.
func TestInContainerMounts(t *testing.T) {
	dir := t.TempDir()
	c := corev1.Container{Name: "csi-driver", VolumeMounts: []corev1.VolumeMount{
		{Name: "socket-dir", MountPath: "/plugin"},
		{Name: "ca", MountPath: "/etc/kubernetes/static-pod-resources/configmaps/cloud-config"},
		{Name: "scratch", MountPath: "/etc/kubernetes/"},
		{Name: "conf", MountPath: "/etc/conf/x.conf", SubPath: "x.conf", ReadOnly: true},
		{Name: "etcd", MountPath: "/etcd/data"},
	}}
	pod := &podRoot{dir: dir, spec: corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "socket-dir", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "ca", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "conf", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "etcd", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}}}
	path, args, ok := pod.inContainerMounts(c, "/scratch", "/bin/driver", []string{"--endpoint=unix:///x.sock"}, "/etc")
	vol := func(name string) string { return filepath.Join(dir, "volumes", name) }
	want := []string{script("container-mounts.sh"), "/scratch",
		"rw", vol("scratch"), "/etc/kubernetes",
		"ro", filepath.Join(vol("conf"), "x.conf"), "/etc/conf/x.conf",
		"ro", vol("ca"), "/etc/kubernetes/static-pod-resources/configmaps/cloud-config",
		"--", "/bin/driver", "--endpoint=unix:///x.sock"}
	if path != "bash" || !ok || !slices.Equal(args, want) {
		t.Errorf("inContainerMounts = %s %q %v\nwant bash %q true", path, args, ok, want)
	}
	c.VolumeMounts = c.VolumeMounts[:1]
	if _, _, ok := pod.inContainerMounts(c, "/scratch", "/bin/driver", nil, "/etc"); ok {
		t.Error("inContainerMounts ok without a mount below /etc")
	}
}
