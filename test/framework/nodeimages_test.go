package framework

import (
	"slices"
	"testing"
)

func TestLastOfEachPath(t *testing.T) {
	for _, tc := range []struct {
		name        string
		files, want []imageFile
	}{
		{"none", nil, nil},
		{"distinct paths keep their order",
			[]imageFile{{Dest: "bin/a", Src: "/a"}, {Dest: "bin/b", Src: "/b"}},
			[]imageFile{{Dest: "bin/a", Src: "/a"}, {Dest: "bin/b", Src: "/b"}}},
		{"a later file replaces an applet in its place",
			[]imageFile{{Dest: "bin/mount", Link: "busybox"}, {Dest: "bin/sh", Link: "busybox"}, {Dest: "bin/mount", Src: "/usr/bin/mount"}},
			[]imageFile{{Dest: "bin/mount", Src: "/usr/bin/mount"}, {Dest: "bin/sh", Link: "busybox"}}},
		{"a library two executables link is written once",
			[]imageFile{{Dest: "lib/libc.so.6", Src: "/lib/libc.so.6"}, {Dest: "lib/libc.so.6", Src: "/lib/libc.so.6"}},
			[]imageFile{{Dest: "lib/libc.so.6", Src: "/lib/libc.so.6"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastOfEachPath(tc.files); !slices.Equal(got, tc.want) {
				t.Errorf("got %v; want %v", got, tc.want)
			}
		})
	}
}
