// Package integration runs the operator against a real kube-apiserver + etcd and a real Keystone +
// Manila API, all started on 127.0.0.1 for this test binary.
package integration

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

var world *framework.World

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.list"); f != nil && f.Value.String() != "" {
		os.Exit(m.Run()) // listing the tests (hack/test-integration.sh) needs no world
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	start := time.Now()
	w, err := framework.StartWorld(ctx)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: starting the test world: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "test world up in %s: kube-apiserver %s, keystone %s, manila %s\n",
		time.Since(start).Round(time.Millisecond), w.Config.Host, w.OpenStack.AuthURL(), w.OpenStack.ManilaURL())
	world = w
	code := runTests(m)
	// No credential anywhere but where it must be, after every test has run.
	for i, sentinel := range w.OpenStack.Sentinels() {
		what := []string{"the world's password", "the application credential's secret"}[i]
		leaks, err := w.FindSentinel(context.Background(), sentinel)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "FAIL: the sentinel check: %v\n", err)
			code = 1
		case len(leaks) > 0:
			fmt.Fprintf(os.Stderr, "FAIL: %s shows in %v\n", what, leaks)
			code = 1
		default:
			fmt.Fprintf(os.Stderr, "sentinel check: %s is only in the two credential Secrets\n", what)
		}
	}
	w.Stop()
	if binaryDir != "" {
		_ = os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// runTests runs the tests -test.run selects or, when TEST_QUEUE names a file of test names (longest
// first, hack/test-integration.sh), each name of it that no other shard claimed first (a directory
// under TEST_QUEUE's claims/): the shards take the next test as each becomes free, so they end
// within about one short test of each other whatever the recorded times were.
func runTests(m *testing.M) int {
	queue := os.Getenv("TEST_QUEUE")
	if queue == "" {
		return m.Run()
	}
	b, err := os.ReadFile(queue)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: reading the test queue: %v\n", err)
		return 1
	}
	claims := queue + ".claims"
	if err := os.MkdirAll(claims, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	code := 0
	for _, name := range strings.Fields(string(b)) {
		switch err := os.Mkdir(filepath.Join(claims, name), 0o755); {
		case errors.Is(err, fs.ErrExist):
			continue // another shard runs it
		case err != nil:
			fmt.Fprintf(os.Stderr, "FAIL: claiming %s: %v\n", name, err)
			return 1
		}
		if err := flag.Set("test.run", "^"+regexp.QuoteMeta(name)+"$"); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
			return 1
		}
		code = max(code, m.Run())
	}
	return code
}
