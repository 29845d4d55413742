package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// The cobra wiring of check-cloud and render turns usage errors into exit code 2 (bad input), not
// cobra's 1, which both keep for a cloud that cannot be used, and prints nothing on stdout.
func TestCommandsBadInput(t *testing.T) {
	commands := map[string]func(exit func(int)) *cobra.Command{
		"check-cloud": newCheckCloudCommand,
		"render":      newRenderCommand,
	}
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"check-cloud without --clouds", []string{"check-cloud"}, "--clouds FILE is required"},
		{"check-cloud unknown flag", []string{"check-cloud", "--bogus"}, "unknown flag: --bogus"},
		{"check-cloud with an argument", []string{"check-cloud", "--clouds", "x", "extra"}, "no arguments are taken"},
		{"check-cloud unreadable file", []string{"check-cloud", "--clouds", "/nonexistent/clouds.yaml"}, "reading --clouds"},
		{"render without input", []string{"render"}, "--clouds FILE or --share-types FILE is required"},
		{"render unknown flag", []string{"render", "--bogus"}, "unknown flag: --bogus"},
		{"render with an argument", []string{"render", "--share-types", "x", "extra"}, "no arguments are taken"},
		{"render unreadable file", []string{"render", "--share-types", "/nonexistent/types.yaml"}, "reading --share-types"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code := -1
			root := newRootCommand()
			root.RemoveCommand(root.Commands()...)
			root.AddCommand(commands[tt.args[0]](func(c int) {
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
				t.Errorf("exit %d, want 2 with %q\nstdout: %s\nstderr: %s", code, tt.stderr, stdout.String(), stderr.String())
			}
		})
	}
}
