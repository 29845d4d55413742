package framework

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// ForbiddenLines returns the lines of the log file that say "forbidden" in any case: each is a
// request the apiserver refused for want of RBAC, or a client that reports one.
func ForbiddenLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024) // klog lines with whole objects run long
	for sc.Scan() {
		if strings.Contains(strings.ToLower(sc.Text()), "forbidden") {
			out = append(out, sc.Text())
		}
	}
	return out, sc.Err()
}

// RequireNoForbidden fails the test if the log file says "forbidden" anywhere (case-insensitive):
// a hosted operator whose RBAC on either cluster lacks a permission it uses shows it there first.
// It reports the first lines that do.
func RequireNoForbidden(t testing.TB, logPath string) {
	t.Helper()
	lines, err := ForbiddenLines(logPath)
	if err != nil {
		t.Fatalf("reading %s for forbidden requests: %v", logPath, err)
	}
	if len(lines) == 0 {
		return
	}
	const shown = 10
	count, more := len(lines), ""
	if len(lines) > shown {
		more = "\n..."
		lines = lines[:shown]
	}
	t.Errorf("%s says forbidden in %d line(s):\n%s%s", logPath, count, strings.Join(lines, "\n"), more)
}
