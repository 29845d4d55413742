package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// StorageSuite is a run of Kubernetes' external storage suite (k8s.io/kubernetes/test/e2e/storage/external,
// the test binary hack/k8s-binaries.sh builds from hack/e2e-storage) against the world's cluster, for
// one test driver of test/e2e-storage.
type StorageSuite struct {
	// Manifest is the test driver's file in test/e2e-storage.
	Manifest string
	// Focus are regular expressions over a spec's text: a spec runs when one matches.
	Focus []string
	// Skip, when set, keeps the specs it matches from running.
	Skip string
	// Timeout bounds the whole run.
	Timeout time.Duration
}

// StorageSuiteBinary is the suite's test binary.
func StorageSuiteBinary() string { return filepath.Join(ControlPlaneBinDir(), "e2e-storage") }

// StorageSuiteManifest is the path of a test driver of test/e2e-storage.
func StorageSuiteManifest(name string) string {
	return filepath.Join(RepoRoot(), "test", "e2e-storage", name)
}

// RunStorageSuite runs the suite until it ends and returns its specs as its JUnit report gives them.
// The suite's output is kept as the test's artifact when the test fails. A suite that wrote no report
// fails the test.
func (w *World) RunStorageSuite(t testing.TB, s StorageSuite) []SpecResult {
	t.Helper()
	bin := StorageSuiteBinary()
	if err := requireFiles("the external storage suite (hack/k8s-binaries.sh build: make deps-k8s)", bin); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "junit.xml")
	args := []string{
		"-kubeconfig=" + w.Kubeconfig, "-provider=local",
		"-storage.testdriver=" + StorageSuiteManifest(s.Manifest),
		"-ginkgo.junit-report=" + report, "-ginkgo.no-color", "-ginkgo.v",
		"-ginkgo.timeout=" + s.Timeout.String(), "-test.timeout=" + (s.Timeout + time.Minute).String(),
		"-e2e-output-dir=" + dir,
	}
	for _, f := range s.Focus {
		args = append(args, "-ginkgo.focus="+f)
	}
	if s.Skip != "" {
		args = append(args, "-ginkgo.skip="+s.Skip)
	}
	logPath := filepath.Join(dir, "suite.log")
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	began := time.Now()
	runErr := cmd.Run() // a failed spec makes it exit non-zero: the report says which
	t.Cleanup(func() {
		b, _ := os.ReadFile(logPath)
		LogOnFailure(t, "the storage suite's output", 80, string(b))
	})
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the storage suite (%v after %s) wrote no report: %v", runErr, time.Since(began).Round(time.Second), err)
	}
	specs, err := ReadJUnit(data)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the storage suite for %s ran in %s (%v)", s.Manifest, time.Since(began).Round(time.Second), runErr)
	return specs
}

// FocusedRunProblems says what is wrong with a focused run: each focus must have run at least one
// spec, and every spec that ran must have passed (a skipped spec proves nothing).
func FocusedRunProblems(specs []SpecResult, focus []string) []string {
	var problems []string
	for _, f := range focus {
		re, err := regexp.Compile(f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("focus %q: %v", f, err))
			continue
		}
		ran := false
		for _, s := range specs {
			ran = ran || re.MatchString(s.Name)
		}
		if !ran {
			problems = append(problems, fmt.Sprintf("no spec matching %q ran", f))
		}
	}
	for _, s := range specs {
		if s.State != "passed" {
			problems = append(problems, fmt.Sprintf("%s %s: %s", s.State, s.Name, strings.Join(strings.Fields(s.Message), " ")))
		}
	}
	return problems
}
