package framework

import (
	"slices"
	"testing"
)

func TestMountBeforeCommand(t *testing.T) {
	for _, tc := range []struct {
		name          string
		wrapped, want []string
	}{
		{"no mounts yet", []string{"cm.sh", "/s", "--", "/bin/p", "--a"},
			[]string{"cm.sh", "/s", "ro", "/h", "/sbin/x", "--", "/bin/p", "--a"}},
		{"after the volumes", []string{"cm.sh", "/s", "rw", "/v", "/etc/v", "--", "/bin/p"},
			[]string{"cm.sh", "/s", "rw", "/v", "/etc/v", "ro", "/h", "/sbin/x", "--", "/bin/p"}},
		{"the command's own -- stays its", []string{"cm.sh", "/s", "--", "/bin/p", "--", "x"},
			[]string{"cm.sh", "/s", "ro", "/h", "/sbin/x", "--", "/bin/p", "--", "x"}},
		{"not a container-mounts command", []string{"/bin/p"}, []string{"/bin/p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := slices.Clone(tc.wrapped)
			if got := mountBeforeCommand(tc.wrapped, "ro", "/h", "/sbin/x"); !slices.Equal(got, tc.want) {
				t.Errorf("got %q; want %q", got, tc.want)
			}
			if !slices.Equal(tc.wrapped, orig) {
				t.Errorf("the argument changed: %q", tc.wrapped)
			}
		})
	}
}
