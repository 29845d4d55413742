package main

import (
	"bytes"
	"strings"
	"testing"
)

// The cobra wiring turns usage errors into exit code 2 (bad input), not cobra's 1, which check-cloud
// keeps for an unusable Manila.
func TestCheckCloudCommandBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no --clouds", []string{"check-cloud"}, "--clouds FILE is required"},
		{"unknown flag", []string{"check-cloud", "--bogus"}, "unknown flag: --bogus"},
		{"an argument", []string{"check-cloud", "--clouds", "x", "extra"}, "no arguments are taken"},
		{"unreadable file", []string{"check-cloud", "--clouds", "/nonexistent/clouds.yaml"}, "reading --clouds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := -1
			root := newRootCommand()
			root.RemoveCommand(root.Commands()...)
			root.AddCommand(newCheckCloudCommand(func(c int) {
				if code == -1 {
					code = c
				}
			}))
			var stdout, stderr bytes.Buffer
			root.SetOut(&stdout)
			root.SetErr(&stderr)
			root.SetArgs(tt.args)
			_ = root.Execute()
			if code != 2 || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, want 2\nstderr: %s", code, stderr.String())
			}
		})
	}
}
