package hooks

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current render")

// The driver container's arguments of both workloads, rendered from the embedded assets, in each
// topology mode: golden files, so a change in what the driver runs with shows in review.
func TestTopologyDriverArgsGolden(t *testing.T) {
	vars := assets.Vars{FSGroupPolicy: "None"}
	workloads := map[string]func() *corev1.PodSpec{
		"controller": func() *corev1.PodSpec {
			data, err := vars.Render(assets.ControllerDeployment)
			if err != nil {
				t.Fatal(err)
			}
			return &resourceread.ReadDeploymentV1OrDie(data).Spec.Template.Spec
		},
		"node": func() *corev1.PodSpec {
			data, err := vars.Render(assets.NodeDaemonSet)
			if err != nil {
				t.Fatal(err)
			}
			return &resourceread.ReadDaemonSetV1OrDie(data).Spec.Template.Spec
		},
	}
	for workload, spec := range workloads {
		for mode, zonal := range map[string]bool{"None": false, "Zonal": true} {
			name := workload + "-" + mode + ".args"
			t.Run(name, func(t *testing.T) {
				s := spec()
				SetTopology(s, zonal)
				SetTopology(s, zonal) // idempotent: a hook runs on every sync
				got := driverArgs(t, s)
				golden := filepath.Join("testdata", "golden", name)
				if *update {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./pkg/hooks/ -update)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("driver args differ from %s (run go test ./pkg/hooks/ -update if intended)\n--- got\n%s", golden, got)
				}
			})
		}
	}
}

// Turning Zonal off removes the argument again.
func TestSetTopologyOff(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: driverContainer, Args: []string{"--v=2", withTopologyArg}}, {Name: "other", Args: []string{withTopologyArg}}}}
	SetTopology(spec, false)
	if got := strings.Join(spec.Containers[0].Args, " "); got != "--v=2" {
		t.Errorf("driver args = %q, want --v=2", got)
	}
	if got := strings.Join(spec.Containers[1].Args, " "); got != withTopologyArg {
		t.Errorf("another container's args changed: %q", got)
	}
}

func driverArgs(t *testing.T, spec *corev1.PodSpec) []byte {
	for _, c := range spec.Containers {
		if c.Name == driverContainer {
			return []byte(strings.Join(c.Args, "\n") + "\n")
		}
	}
	t.Fatalf("no container %s", driverContainer)
	return nil
}
