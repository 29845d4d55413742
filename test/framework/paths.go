// Package framework gives integration tests a real world to run the operator in: a kube-apiserver
// with etcd, and a Keystone with a Manila API, all on 127.0.0.1, started and stopped by the project's
// own scripts under hack/.
package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RepoRoot is the directory holding go.mod, found from the test's working directory.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("framework: no go.mod above the working directory")
		}
		dir = parent
	}
}

// envOr returns the environment variable, or the default relative to the repository root.
func envOr(name, rel string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return filepath.Join(RepoRoot(), rel)
}

// ControlPlaneBinDir holds kube-apiserver and etcd (`make test-deps` builds them).
func ControlPlaneBinDir() string { return envOr("TEST_K8S_BIN_DIR", "_output/bin/k8s-1.36.2") }

// CRDDir holds the CRDs copied out of the module cache (`make test-deps`).
func CRDDir() string { return envOr("TEST_CRD_DIR", "_output/crds") }

// SchemaCacheDir keeps Keystone's and Manila's migrated empty databases between OpenStack setups
// (hack/openstack-peer.sh SCHEMA_CACHE).
func SchemaCacheDir() string { return envOr("TEST_SCHEMA_CACHE", "_output/openstack-schema") }

func script(name string) string { return filepath.Join(RepoRoot(), "hack", name) }

// runScript runs a hack/ script and returns an error carrying its output when it fails.
func runScript(env []string, name string, args ...string) (string, error) {
	cmd := exec.Command("bash", append([]string{script(name)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("hack/%s %s: %w\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func requireFiles(step string, paths ...string) error {
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s: %s is missing (run `make test-deps`): %w", step, p, err)
		}
	}
	return nil
}
