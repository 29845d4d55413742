// Package sourcerules checks the module's own Go source against rules of the house that no compiler
// or vet check enforces: no reaching into other packages' unexported state (go:linkname), and no
// tuning of the process's memory behind the Go runtime's back (madvise).
package sourcerules

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var forbidden = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`//go:linkname`), "go:linkname reaches into another package's unexported state"},
	{regexp.MustCompile(`(?i)madvise`), "madvise tunes the process's memory behind the Go runtime's back"},
	{regexp.MustCompile(`MADV_`), "MADV_ flags tune the process's memory behind the Go runtime's back"},
}

// violations returns "line N: why" for each forbidden use in src.
func violations(src []byte) []string {
	var out []string
	for i, line := range bytes.Split(src, []byte("\n")) {
		for _, f := range forbidden {
			if f.re.Match(line) {
				out = append(out, fmt.Sprintf("line %d: %s", i+1, f.why))
			}
		}
	}
	return out
}

func TestViolationsFindsEachForbiddenUse(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"clean", "package x\n\nfunc f() {}\n", 0},
		{"linkname", "package x\n\n//go:linkname v other/pkg.v\nvar v int\n", 1},
		{"madvise call", "package x\n\nvar _ = unix.Madvise(b, unix.MADV_DONTNEED)\n", 2},
		{"madvise in a comment", "package x\n\n// madvise the pages\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := violations([]byte(tc.src)); len(got) != tc.want {
				t.Errorf("violations = %q, want %d", got, tc.want)
			}
		})
	}
}

// TestModuleSourceFollowsTheRules walks every .go file of the module except vendor/, build output and
// this file, which names the patterns.
func TestModuleSourceFollowsTheRules(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			switch rel {
			case "vendor", "_output", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) != ".go" || rel == filepath.Join("test", "sourcerules", "sourcerules_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, v := range violations(src) {
			t.Errorf("%s %s", rel, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files under %s: the walk missed the module", files, root)
	}
}
