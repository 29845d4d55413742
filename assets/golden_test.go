package assets

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current render")

var testVars = Vars{Images: map[string]string{"NFS_DRIVER_IMAGE": "quay.io/test/nfs:1"}, FSGroupPolicy: "None"}

func TestGolden(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			got, err := testVars.Render(name)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", name)
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./assets/ -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("render of %s differs from %s (run go test ./assets/ -update if intended)\n--- got\n%s", name, golden, got)
			}
		})
	}
}

// Every golden file belongs to an asset, so renamed assets leave no stale golden behind.
func TestGoldenHasNoStrays(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !known(e.Name()) {
			t.Errorf("testdata/golden/%s is not an asset", e.Name())
		}
	}
}
