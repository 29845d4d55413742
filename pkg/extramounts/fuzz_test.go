package extramounts

import (
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Apply never panics; what it accepts is a pod spec the API server would take: volume names that are
// unique DNS labels, absolute mount paths unique per container once cleaned, safe subPaths, mounts of
// known volumes; and what it refuses leaves the spec as it was.
func FuzzApply(f *testing.F) {
	f.Add("conf", "/etc/conf", "", "Node", "csi-driver")
	f.Add("socket-dir", "/plugin/", "", "All", "")
	f.Add("My_Vol", "//plugin", "../x", "openstack-manila-csi-nodeplugin", "ghost")
	f.Fuzz(func(t *testing.T, volume, mountPath, subPath, propagation, container string) {
		e := Entry{Source: "fuzz", VolMounts: VolMounts{
			Volumes: []corev1.Volume{{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Mounts:  []corev1.VolumeMount{{Name: volume, MountPath: mountPath, SubPath: subPath}},
		}}
		if propagation != "" {
			e.Propagation = []PropagationType{PropagationType(propagation)}
		}
		if container != "" {
			e.Containers = []string{container}
		}
		spec := podSpec()
		before := spec.DeepCopy()
		if err := Apply(spec, NodeTarget, []Entry{e}); err != nil {
			if len(spec.Volumes) != len(before.Volumes) || len(spec.Containers[0].VolumeMounts) != len(before.Containers[0].VolumeMounts) {
				t.Fatalf("a refused entry changed the spec: %v", err)
			}
			return
		}
		names := map[string]bool{}
		for _, v := range spec.Volumes {
			if names[v.Name] {
				t.Fatalf("duplicate volume %q", v.Name)
			}
			names[v.Name] = true
			if len(validation.IsDNS1123Label(v.Name)) > 0 && v.Name == volume {
				t.Fatalf("accepted volume name %q", v.Name)
			}
		}
		for _, c := range spec.Containers {
			var paths []string
			for _, m := range c.VolumeMounts {
				if !names[m.Name] {
					t.Fatalf("container %s mounts unknown volume %q", c.Name, m.Name)
				}
				p := path.Clean(m.MountPath)
				if slices.Contains(paths, p) {
					t.Fatalf("container %s mounts %s twice", c.Name, p)
				}
				paths = append(paths, p)
				if m.SubPath != "" && (path.IsAbs(m.SubPath) || slices.Contains(strings.Split(m.SubPath, "/"), "..")) {
					t.Fatalf("accepted subPath %q", m.SubPath)
				}
			}
		}
	})
}
