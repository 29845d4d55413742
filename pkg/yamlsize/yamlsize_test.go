package yamlsize

import (
	"fmt"
	"strings"
	"testing"
)

func bomb(scalar, aliases int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "big: &a %s\nlist:\n", strings.Repeat("x", scalar))
	for range aliases {
		b.WriteString("- *a\n")
	}
	return []byte(b.String())
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr bool
	}{
		{name: "ordinary config", data: []byte("pollInterval: 30s\nstorageClasses:\n  prune: true\n")},
		{name: "a few aliases of a small anchor", data: []byte("d: &d {a: 1}\nx: *d\ny: *d\n")},
		{name: "64 KiB aliased 3,000 times", data: bomb(64<<10, 3000), wantErr: true},
		{name: "nested alias bomb", data: []byte("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"), wantErr: true},
		{name: "not YAML is left to the parser", data: []byte("a: [\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.data, MaxExpanded)
			if (err != nil) != tc.wantErr {
				t.Errorf("Check: %v, want error %v", err, tc.wantErr)
			}
		})
	}
}
