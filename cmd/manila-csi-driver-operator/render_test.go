package main

import (
	"bytes"
	"strings"
	"testing"
)

// As check-cloud: usage errors are exit code 2 (bad input); 1 is kept for a cloud that cannot list
// its share types.
func TestRenderCommandBadInput(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no input", []string{"render"}, "--clouds FILE or --share-types FILE is required"},
		{"unknown flag", []string{"render", "--bogus"}, "unknown flag: --bogus"},
		{"an argument", []string{"render", "--share-types", "x", "extra"}, "no arguments are taken"},
		{"unreadable file", []string{"render", "--share-types", "/nonexistent/types.yaml"}, "reading --share-types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := -1
			root := newRootCommand()
			root.RemoveCommand(root.Commands()...)
			root.AddCommand(newRenderCommand(func(c int) {
				if code == -1 {
					code = c
				}
			}))
			var stdout, stderr bytes.Buffer
			root.SetOut(&stdout)
			root.SetErr(&stderr)
			root.SetArgs(tt.args)
			_ = root.Execute()
			if code != 2 || !strings.Contains(stderr.String(), tt.stderr) || stdout.Len() > 0 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
		})
	}
}
