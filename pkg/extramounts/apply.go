package extramounts

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	corev1 "k8s.io/api/core/v1"
)

// Apply adds the entries that reach target to the pod spec, after checking them against the pod's
// own volumes and mounts: a duplicate volume name, two mounts at one path in a container, a mount of
// an unknown volume or into an unknown container is an EntryError and leaves spec unchanged.
func Apply(spec *corev1.PodSpec, target Target, entries []Entry) error {
	out := spec.DeepCopy()
	volumes := map[string]string{} // name -> who declared it
	for _, v := range out.Volumes {
		volumes[v.Name] = "the workload's own volumes"
	}
	for _, e := range entries {
		if err := ValidatePropagation(e); err != nil {
			return err
		}
	}
	reaching := Propagate(entries, target)
	for _, e := range reaching {
		for i, v := range e.Volumes {
			field := fmt.Sprintf("volumes[%d].name", i)
			if v.Name == "" {
				return &EntryError{Entry: e.Source, Field: field, Reason: "empty"}
			}
			if errs := validation.IsDNS1123Label(v.Name); len(errs) > 0 {
				return &EntryError{Entry: e.Source, Field: field, Reason: "not a valid volume name: " + strings.Join(errs, "; ")}
			}
			if owner, dup := volumes[v.Name]; dup {
				return &EntryError{Entry: e.Source, Field: field, Reason: fmt.Sprintf("volume %q in %s already exists in %s", v.Name, target.Name, owner)}
			}
			volumes[v.Name] = e.Source
			out.Volumes = append(out.Volumes, v)
		}
	}
	for _, e := range reaching {
		containers := e.Containers
		if len(containers) == 0 {
			containers = []string{target.Driver}
		}
		for ci, name := range containers {
			idx := slices.IndexFunc(out.Containers, func(c corev1.Container) bool { return c.Name == name })
			if idx < 0 {
				return &EntryError{Entry: e.Source, Field: fmt.Sprintf("containers[%d]", ci), Reason: fmt.Sprintf("%s has no container %q", target.Name, name)}
			}
			c := &out.Containers[idx]
			for mi, m := range e.Mounts {
				if _, ok := volumes[m.Name]; !ok {
					return &EntryError{Entry: e.Source, Field: fmt.Sprintf("mounts[%d].name", mi), Reason: fmt.Sprintf("no volume %q in %s", m.Name, target.Name)}
				}
				if m.MountPath == "" {
					return &EntryError{Entry: e.Source, Field: fmt.Sprintf("mounts[%d].mountPath", mi), Reason: "empty"}
				}
				if !path.IsAbs(m.MountPath) {
					return &EntryError{Entry: e.Source, Field: fmt.Sprintf("mounts[%d].mountPath", mi), Reason: "not an absolute path"}
				}
				if m.SubPath != "" && (path.IsAbs(m.SubPath) || slices.Contains(strings.Split(m.SubPath, "/"), "..")) {
					return &EntryError{Entry: e.Source, Field: fmt.Sprintf("mounts[%d].subPath", mi), Reason: "must be a relative path without '..'"}
				}
				if slices.ContainsFunc(c.VolumeMounts, func(have corev1.VolumeMount) bool { return path.Clean(have.MountPath) == path.Clean(m.MountPath) }) {
					return &EntryError{Entry: e.Source, Field: fmt.Sprintf("mounts[%d].mountPath", mi),
						Reason: fmt.Sprintf("%s is already a mount path of container %s in %s", m.MountPath, name, target.Name)}
				}
				c.VolumeMounts = append(c.VolumeMounts, m)
			}
		}
	}
	*spec = *out
	return nil
}
