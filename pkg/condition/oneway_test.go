package condition

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every condition this operator writes or removes goes through Update: no other status write of the
// ClusterCSIDriver in the operator's code. The one exception forwards library-go's own controllers'
// server-side applies (optionalInstanceClient), which are library-go's write, not ours.
func TestOneWayToWriteACondition(t *testing.T) {
	writes := regexp.MustCompile(`v1helpers\.UpdateStatus\(|\.ApplyOperatorStatus\(|\.UpdateOperatorStatus\(|\.PatchOperatorStatus\(|\.UpdateStatus\(ctx`)
	forwarding := "return c.OperatorClientWithFinalizers.ApplyOperatorStatus(ctx, fieldManager, withoutAvailable(status))"
	found := 0
	for _, root := range []string{"../../pkg", "../../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
				strings.HasPrefix(filepath.ToSlash(path), "../../pkg/condition/") {
				return err
			}
			found++
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(src), "\n") {
				if writes.MatchString(line) && strings.TrimSpace(line) != forwarding {
					t.Errorf("%s:%d writes the status other than through condition.Update: %s", path, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if found < 50 {
		t.Fatalf("read %d Go files; the layout changed", found)
	}
}
