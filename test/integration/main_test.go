// Package integration runs the operator against a real kube-apiserver + etcd and a real Keystone +
// Manila API, all started on 127.0.0.1 for this test binary.
package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
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
	code := m.Run()
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
