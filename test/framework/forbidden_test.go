package framework

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestForbiddenLines(t *testing.T) {
	long := strings.Repeat("x", 200*1024)
	for _, tc := range []struct {
		name, log string
		want      []string
	}{
		{"empty log", "", nil},
		{"clean log", "I0101 started\nI0101 synced ClusterCSIDriver\n", nil},
		{"a refused request", "I0101 started\nE0101 reflector: secrets is forbidden: User \"system:serviceaccount:x:y\" cannot list\n",
			[]string{"E0101 reflector: secrets is forbidden: User \"system:serviceaccount:x:y\" cannot list"}},
		{"any case", "W0101 status 403 Forbidden\nE0101 FORBIDDEN\nI0101 fine\n", []string{"W0101 status 403 Forbidden", "E0101 FORBIDDEN"}},
		{"last line without newline", "I0101 a\nE0101 forbidden", []string{"E0101 forbidden"}},
		{"a line longer than bufio's default", long + "forbidden\nI0101 b\n", []string{long + "forbidden"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "operator.log")
			if err := os.WriteFile(path, []byte(tc.log), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := ForbiddenLines(path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ForbiddenLines = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := ForbiddenLines(filepath.Join(t.TempDir(), "missing.log")); err == nil {
		t.Error("ForbiddenLines of a missing file: no error, want one (a test must not pass on a log it never read)")
	}
}
