package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ArtifactsDirEnv names the directory where a failed test's process logs go (hack/test-integration.sh
// sets it per shard and prints the files before the shard's own output). Unset, the logs' last lines
// go to the test log.
const ArtifactsDirEnv = "TEST_ARTIFACTS_DIR"

// LogOnFailure keeps a process's log of a test that failed. Under ArtifactsDirEnv the whole log goes
// to a file there and the test log says where in one line, so the test's own errors stay the last
// lines before its "--- FAIL" (a reader shown a part of a long output sees them); otherwise its last
// lines go to the test log. Call it from a cleanup.
func LogOnFailure(t testing.TB, name string, lines int, log string) {
	t.Helper()
	if !t.Failed() {
		return
	}
	if dir := os.Getenv(ArtifactsDirEnv); dir != "" {
		path, err := writeArtifact(dir, t.Name(), name, log)
		if err == nil {
			t.Logf("%s: %d lines in %s", name, strings.Count(log, "\n"), path)
			return
		}
		t.Logf("%s: not kept (%v)", name, err)
	}
	t.Logf("%s (last %d lines):\n%s", name, lines, tail(log, lines))
}

var unsafeInName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeArtifact writes log to dir/<test>/<name>.log, both made safe as file names.
func writeArtifact(dir, test, name, log string) (string, error) {
	d := filepath.Join(dir, unsafeInName.ReplaceAllString(test, "_"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(d, unsafeInName.ReplaceAllString(name, "_")+".log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}
