package extramounts

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func entry(source string, propagation ...PropagationType) Entry {
	return Entry{Source: source, VolMounts: VolMounts{
		Propagation: propagation,
		Volumes:     []corev1.Volume{{Name: source + "-vol"}},
		Mounts:      []corev1.VolumeMount{{Name: source + "-vol", MountPath: "/etc/" + source}},
	}}
}

func TestPropagate(t *testing.T) {
	controller, node, nfs := ControllerTarget, NodeTarget, NFSNodeTarget
	tests := []struct {
		name  string
		entry Entry
		want  map[PropagationType]bool
	}{
		{"empty propagation reaches all", entry("e"), map[PropagationType]bool{ControllerPlugin: true, NodePlugin: true, NFSNodePlugin: true}},
		{"All", entry("e", All), map[PropagationType]bool{ControllerPlugin: true, NodePlugin: true, NFSNodePlugin: true}},
		{"group Node", entry("e", Node), map[PropagationType]bool{NodePlugin: true, NFSNodePlugin: true}},
		{"group Controller", entry("e", Controller), map[PropagationType]bool{ControllerPlugin: true}},
		{"instance", entry("e", NFSNodePlugin), map[PropagationType]bool{NFSNodePlugin: true}},
		{"unrelated instance", entry("e", NodePlugin), map[PropagationType]bool{NodePlugin: true}},
	}
	for _, tt := range tests {
		for _, target := range []Target{controller, node, nfs} {
			got := Propagate([]Entry{tt.entry}, target)
			if (len(got) == 1) != tt.want[target.Name] || len(got) > 1 {
				t.Errorf("%s: %s got %d copies", tt.name, target.Name, len(got))
			}
		}
	}
	several := entry("e", All, Node, NodePlugin)
	if got := Propagate([]Entry{several}, node); len(got) != 1 {
		t.Errorf("several matching values gave %d copies, want 1", len(got))
	}
}

func podSpec() *corev1.PodSpec {
	return &corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "socket-dir"}},
		Containers: []corev1.Container{
			{Name: "csi-driver", VolumeMounts: []corev1.VolumeMount{{Name: "socket-dir", MountPath: "/plugin"}}},
			{Name: "csi-provisioner"},
		},
	}
}

func TestApply(t *testing.T) {
	node := NodeTarget
	spec := podSpec()
	sidecar := entry("side", Node)
	sidecar.Containers = []string{"csi-driver", "csi-provisioner"}
	if err := Apply(spec, node, []Entry{entry("ceph", Node, NodePlugin), sidecar, entry("ctrl", Controller)}); err != nil {
		t.Fatal(err)
	}
	if len(spec.Volumes) != 3 {
		t.Errorf("volumes %v", spec.Volumes)
	}
	if n := len(spec.Containers[0].VolumeMounts); n != 3 {
		t.Errorf("driver mounts %v", spec.Containers[0].VolumeMounts)
	}
	if n := len(spec.Containers[1].VolumeMounts); n != 1 {
		t.Errorf("provisioner mounts %v", spec.Containers[1].VolumeMounts)
	}
}

func TestApplyErrors(t *testing.T) {
	node := NodeTarget
	dupVolume := entry("a")
	dupVolume.Volumes[0].Name = "socket-dir"
	dupPath := entry("b")
	dupPath.Mounts[0].MountPath = "/plugin"
	unknownVolume := entry("c")
	unknownVolume.Mounts[0].Name = "nope"
	unknownContainer := entry("d")
	unknownContainer.Containers = []string{"csi-driver", "ghost"}
	badTarget := entry("f", "Workers")
	emptyName := entry("g")
	emptyName.Volumes[0].Name = ""
	with := func(source string, edit func(*Entry)) Entry {
		e := entry(source)
		edit(&e)
		return e
	}
	tests := []struct {
		name    string
		entries []Entry
		source  string
		field   string
	}{
		{"volume name collides with a built-in one", []Entry{dupVolume}, "a", "volumes[0].name"},
		{"two entries with one volume name", []Entry{entry("x"), entry("x")}, "x", "volumes[0].name"},
		{"mount path collides with a built-in one", []Entry{dupPath}, "b", "mounts[0].mountPath"},
		{"two entries mount one path", []Entry{entry("p"), func() Entry { e := entry("q"); e.Mounts[0].MountPath = "/etc/p"; return e }()}, "q", "mounts[0].mountPath"},
		{"mount of an unknown volume", []Entry{unknownVolume}, "c", "mounts[0].name"},
		{"unknown container", []Entry{unknownContainer}, "d", "containers[1]"},
		{"unknown propagation target", []Entry{badTarget}, "f", "propagation[0]"},
		{"empty volume name", []Entry{emptyName}, "g", "volumes[0].name"},
		{"volume name not a DNS label", []Entry{with("h", func(e *Entry) { e.Volumes[0].Name, e.Mounts[0].Name = "My_Vol", "My_Vol" })}, "h", "volumes[0].name"},
		{"a built-in path with a trailing slash", []Entry{with("i", func(e *Entry) { e.Mounts[0].MountPath = "/plugin/" })}, "i", "mounts[0].mountPath"},
		{"a built-in path with a double slash", []Entry{with("j", func(e *Entry) { e.Mounts[0].MountPath = "//plugin" })}, "j", "mounts[0].mountPath"},
		{"a relative mount path", []Entry{with("k", func(e *Entry) { e.Mounts[0].MountPath = "etc/k" })}, "k", "mounts[0].mountPath"},
		{"a subPath climbing out", []Entry{with("l", func(e *Entry) { e.Mounts[0].SubPath = "a/../../etc" })}, "l", "mounts[0].subPath"},
		{"an absolute subPath", []Entry{with("m", func(e *Entry) { e.Mounts[0].SubPath = "/etc" })}, "m", "mounts[0].subPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := podSpec()
			before := spec.DeepCopy()
			err := Apply(spec, node, tt.entries)
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Entry != tt.source || ee.Field != tt.field {
				t.Fatalf("error %v, want entry %s field %s", err, tt.source, tt.field)
			}
			if len(spec.Volumes) != len(before.Volumes) || len(spec.Containers[0].VolumeMounts) != len(before.Containers[0].VolumeMounts) {
				t.Errorf("a failed Apply changed the pod spec")
			}
		})
	}
}
