package render

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current render")

// testImages stands in for the operator's environment, so the goldens do not follow manifests/.
func testImages(name string) string {
	if strings.HasSuffix(name, "_IMAGE") {
		return "quay.io/test/" + strings.ToLower(strings.TrimSuffix(name, "_IMAGE")) + ":1"
	}
	return ""
}

// caseOptions takes each input file a case directory holds; hosted.yaml renders the hosted flavour.
func caseOptions(t *testing.T, dir string) Options {
	o := Options{Cloud: "openstack", ClusterID: "golden-7x2k9", ControlPlaneNodes: 3, Getenv: testImages}
	for file, field := range map[string]*string{
		"share-types.yaml": &o.ShareTypesFile, "clouds.yaml": &o.CloudsFile,
		"config.yaml": &o.ConfigFile, "ca-bundle.pem": &o.CACertFile, "install-config.yaml": &o.InstallConfigFile,
	} {
		if path := filepath.Join(dir, file); fileExists(path) {
			*field = path
		}
	}
	if path := filepath.Join(dir, "hosted.yaml"); fileExists(path) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Namespace          string `json:"namespace"`
			AvailabilityPolicy string `json:"availabilityPolicy"`
		}
		if err := yaml.UnmarshalStrict(data, &h); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		o.Hosted, o.HostedNamespace, o.Availability = true, h.Namespace, h.AvailabilityPolicy
	}
	return o
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func TestGolden(t *testing.T) {
	cases, err := os.ReadDir(filepath.Join("testdata", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := Run(context.Background(), caseOptions(t, filepath.Join("testdata", "cases", c.Name())), &stdout, &stderr); code != ExitOK {
				t.Fatalf("exit code %d, stderr: %s", code, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			golden := filepath.Join("testdata", "golden", c.Name()+".yaml")
			if *update {
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./pkg/render/ -update)", err)
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("render of %s differs from %s (run go test ./pkg/render/ -update if intended)\n--- got\n%s", c.Name(), golden, stdout.String())
			}
			if strings.Contains(stdout.String(), "golden-test-password") {
				t.Error("the password of clouds.yaml is in the output")
			}
		})
	}
}

// Every golden file belongs to a case, so renamed cases leave no stale golden behind.
func TestGoldenHasNoStrays(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !fileExists(filepath.Join("testdata", "cases", strings.TrimSuffix(e.Name(), ".yaml"))) {
			t.Errorf("testdata/golden/%s has no case", e.Name())
		}
	}
}
