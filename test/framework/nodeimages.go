package framework

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// imageFile is one file of an image made on this machine: a copy of Src, or a symlink to Link.
type imageFile struct {
	Dest string
	Src  string
	Link string
}

// Images a real node runs, made from what this machine has under the names the cluster uses:
// nothing is ever pulled (tagged images default to IfNotPresent, and the node has them).
const (
	PauseImage   = "registry.k8s.io/pause:3.10.2"
	BusyboxImage = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1"
)

// AgnhostImage is Kubernetes' multi-purpose test image, which the storage suite's specs run (a
// subpath's mount tester, a privileged pod to look at the node).
const AgnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.63.0"

// agnhostImage is agnhost built here (test/images/agnhost of the same Kubernetes), at /agnhost as in
// its own image, whose entrypoint it is.
func agnhostImage() NodeImage {
	return NodeImage{Binary: AgnhostBinary(), With: []imageFile{{Dest: "agnhost", Link: "bin/agnhost"}}}
}

// SuiteShellImages are the images the external storage suite's specs run only a shell in (an exec
// test's script, a multi-volume spec's writer): made, like BusyboxImage, of Debian's static busybox
// under their cluster names.
var SuiteShellImages = []string{
	"registry.k8s.io/e2e-test-images/nginx:1.15-4",
	"registry.k8s.io/e2e-test-images/glibc-dns-testing:2.0.0",
}

// busyboxFiles is Debian's static busybox with every applet it has (the storage suite's scripts use
// dd, sha256sum, chmod and more), as busybox's own image has them.
func busyboxFiles() ([]imageFile, error) {
	out, err := exec.Command("/bin/busybox", "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("listing busybox's applets: %w", err)
	}
	files := []imageFile{{Dest: "bin/busybox", Src: "/bin/busybox"}}
	for _, applet := range strings.Fields(string(out)) {
		if applet != "busybox" {
			files = append(files, imageFile{Dest: "bin/" + applet, Link: "busybox"})
		}
	}
	return files, nil
}

// NodeImage is an image a real node runs: Binary as its entrypoint (/bin/<its name>) and With, more
// files; each executable of either comes with the shared libraries it links (ldd), and busybox gives
// the shell the pods' hooks and init containers use.
type NodeImage struct {
	Binary string
	With   []imageFile
}

// OperandNodeImages maps the node DaemonSets' images the in-process operator is given (TestImages)
// to the images of the binaries built here that their containers run.
func OperandNodeImages() map[string]NodeImage {
	bin := ProvisioningBinDir()
	return map[string]NodeImage{
		TestImages["DRIVER_IMAGE"]:                {Binary: filepath.Join(bin, "manila-csi-plugin")},
		TestImages["NFS_DRIVER_IMAGE"]:            {Binary: filepath.Join(bin, "nfsplugin"), With: nfsClientFiles(bin)},
		TestImages["NODE_DRIVER_REGISTRAR_IMAGE"]: {Binary: filepath.Join(bin, "csi-node-driver-registrar")},
		TestImages["LIVENESS_PROBE_IMAGE"]:        {Binary: filepath.Join(bin, "livenessprobe")},
	}
}

// nfsClientFiles are the NFS client of the NFS node plugin's image, what its `mount -t nfs` runs: as
// in csi-driver-nfs's own image, util-linux's mount, which execs /sbin/mount.nfs; here that helper is
// hack/nfs/mount.nfs with fuse-nfs beside it (this machine has no kernel NFS client,
// docs/test-world.md), so the helper lives in the image and never on the machine.
func nfsClientFiles(bin string) []imageFile {
	return append(utilLinuxMount(),
		imageFile{Dest: "sbin/mount.nfs", Src: script("nfs/mount.nfs")},
		imageFile{Dest: "sbin/fuse-nfs", Src: filepath.Join(bin, "fuse-nfs")})
}

// CephCSINodeImage is ceph-csi's image as its node plugin uses it here: cephcsi (hack/ceph-csi.sh),
// ceph-fuse (the mounter the world's classes name: this machine has no ceph kernel module) and
// util-linux's mount and umount for its bind mounts, as ceph-csi's own image has them.
func CephCSINodeImage() NodeImage {
	return NodeImage{Binary: filepath.Join(ProvisioningBinDir(), "cephcsi"),
		With: append(utilLinuxMount(), imageFile{Dest: "bin/ceph-fuse", Src: "/usr/bin/ceph-fuse"})}
}

// utilLinuxMount is util-linux's mount and umount (busybox's applets neither run mount helpers nor
// take every option the plugins pass).
func utilLinuxMount() []imageFile {
	return []imageFile{{Dest: "bin/mount", Src: "/usr/bin/mount"}, {Dest: "bin/umount", Src: "/usr/bin/umount"}}
}

// files are the image's entrypoint and files: busybox's, then Binary's and With's (a later file of a
// path replaces an earlier one, e.g. util-linux's mount busybox's applet), then the libraries they link.
func (img NodeImage) files() ([]string, []imageFile, error) {
	dest := "bin/" + filepath.Base(img.Binary)
	own := append([]imageFile{{Dest: dest, Src: img.Binary}}, img.With...)
	files, err := busyboxFiles()
	if err != nil {
		return nil, nil, err
	}
	files = append(files, own...)
	for _, f := range own {
		if f.Src == "" {
			continue // a symlink
		}
		libs, err := linkedLibraries(f.Src)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, libs...)
	}
	return []string{"/" + dest}, lastOfEachPath(files), nil
}

// linkedLibraries are the shared libraries an executable links, at their paths on this machine; none
// for a static executable or a script.
func linkedLibraries(file string) ([]imageFile, error) {
	out, err := exec.Command("ldd", file).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "not a dynamic executable") {
		return nil, fmt.Errorf("ldd %s: %w: %s", file, err, out)
	}
	var libs []imageFile
	for _, line := range strings.Split(string(out), "\n") {
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "/") {
				libs = append(libs, imageFile{Dest: strings.TrimPrefix(f, "/"), Src: f})
			}
		}
	}
	return libs, nil
}

// lastOfEachPath keeps, of the files with one path, the last, in the place of the first.
func lastOfEachPath(files []imageFile) []imageFile {
	at := map[string]int{}
	var out []imageFile
	for _, f := range files {
		if i, ok := at[f.Dest]; ok {
			out[i] = f
			continue
		}
		at[f.Dest] = len(out)
		out = append(out, f)
	}
	return out
}

// writeImageArchive writes a docker-archive tarball (what `docker save` writes and `ctr images
// import` reads, keeping the name) of one layer holding files and the usual empty directories.
func writeImageArchive(file, name string, entrypoint []string, files []imageFile) error {
	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	dirs := map[string]bool{}
	addDir := func(d string, mode int64) error {
		if d == "." || dirs[d] {
			return nil
		}
		dirs[d] = true
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: mode})
	}
	for _, d := range []string{"bin", "dev", "etc", "proc", "run", "sys", "tmp", "var"} {
		mode := int64(0o755)
		if d == "tmp" {
			mode = 0o1777
		}
		if err := addDir(d, mode); err != nil {
			return err
		}
	}
	for _, f := range files {
		parts := strings.Split(path.Dir(f.Dest), "/")
		for i := range parts {
			if err := addDir(path.Join(parts[:i+1]...), 0o755); err != nil {
				return err
			}
		}
		if f.Link != "" {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: f.Dest, Linkname: f.Link, Mode: 0o777}); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(f.Src)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.Dest, Mode: 0o755, Size: int64(len(b))}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	sum := sha256.Sum256(layer.Bytes())
	config, err := json.Marshal(map[string]any{
		"architecture": "amd64", "os": "linux",
		"config": map[string]any{"Entrypoint": entrypoint, "Env": []string{"PATH=/bin:/usr/bin:/sbin:/usr/sbin"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(sum[:])}},
	})
	if err != nil {
		return err
	}
	manifest, err := json.Marshal([]map[string]any{{"Config": "config.json", "RepoTags": []string{name}, "Layers": []string{"layer.tar"}}})
	if err != nil {
		return err
	}
	var archive bytes.Buffer
	aw := tar.NewWriter(&archive)
	for _, e := range []struct {
		name string
		body []byte
	}{{"layer.tar", layer.Bytes()}, {"config.json", config}, {"manifest.json", manifest}} {
		if err := aw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: 0o644, Size: int64(len(e.body))}); err != nil {
			return err
		}
		if _, err := aw.Write(e.body); err != nil {
			return err
		}
	}
	if err := aw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, archive.Bytes(), 0o644)
}
