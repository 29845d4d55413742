// Command bench measures the built operator binary as users run it: a separate process started with
// the manifest's `start` arguments against the real test world, under its ServiceAccount. For 5 and
// for 1,000 share types it prints, from outside the process: the time from start to all
// StorageClasses, and over an idle window (BENCH_IDLE, default 5m) its kube-apiserver requests (from
// the apiserver's audit log), Keystone and Manila requests (from their logs), CPU seconds and VmRSS
// (from /proc), and the binary's size. BENCH_TYPES, BENCH_ENV and BENCH_LOG_DIR help look into a figure.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// testing.Main hands the framework's helpers a real *testing.T, so a failed wait fails the run.
	testing.Main(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "bench", F: func(t *testing.T) { bench(ctx, t) }}}, nil, nil)
}

func bench(ctx context.Context, t *testing.T) {
	bin := os.Getenv("OPERATOR_BINARY")
	if bin == "" {
		t.Fatal("OPERATOR_BINARY must name the built operator (make bench builds it)")
	}
	idle := 5 * time.Minute
	if v := os.Getenv("BENCH_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("BENCH_IDLE: %v", err)
		}
		idle = d
	}
	// Manila with a scheduler and share service (on PostgreSQL): the last step times a real claim.
	world, err := framework.StartWorldWith(ctx, framework.OpenStackOptions{ShareService: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(world.Stop)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)

	counts := []int{5, 1000}
	if v := os.Getenv("BENCH_TYPES"); v != "" { // e.g. "5" for a quick look
		counts = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("BENCH_TYPES: %v", err)
			}
			counts = append(counts, n)
		}
	}
	var results []result
	created := 0
	for _, n := range counts {
		createTypes(ctx, t, world, created, n)
		created = n
		results = append(results, measure(t, world, bin, n, idle))
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	printTable(results, info.Size(), idle)
	last := results[len(results)-1]
	printInformerCosts(informerCosts(t, world, operatorWatches(t, world.AuditLogPath(), last.ran.from, last.ran.to)), last.shareTypes)
	printClaimTiming(timeClaim(t, world, bin, "bench-0000"))
}

func createTypes(ctx context.Context, t *testing.T, world *framework.World, from, to int) {
	specs := make([]framework.ShareTypeSpec, 0, to-from)
	for i := from; i < to; i++ {
		specs = append(specs, framework.ShareTypeSpec{Name: fmt.Sprintf("bench-%04d", i)})
	}
	if _, err := world.OpenStack.CreateShareTypes(ctx, specs); err != nil {
		t.Fatal(err)
	}
}

// startBinary starts the operator binary as the manifest runs it (plus BENCH_ENV) and returns it with
// the function that stops it (and keeps its log in BENCH_LOG_DIR, as operator-<label>.log).
func startBinary(t *testing.T, world *framework.World, bin, label string) (*exec.Cmd, func()) {
	tmp, err := os.MkdirTemp("", "manila-bench-")
	if err != nil {
		t.Fatal(err)
	}
	command := world.OperatorCommandFor(t, tmp)
	logFile, err := os.Create(filepath.Join(tmp, "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, command.Args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = command.Env, logFile, logFile
	if extra := os.Getenv("BENCH_ENV"); extra != "" { // e.g. GODEBUG=gctrace=1, to look into a figure
		cmd.Env = append(cmd.Env, strings.Fields(extra)...)
	}
	process, err := framework.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, func() {
		process.Stop(30 * time.Second)
		logFile.Close()
		if keep := os.Getenv("BENCH_LOG_DIR"); keep != "" {
			if b, err := os.ReadFile(logFile.Name()); err == nil {
				_ = os.WriteFile(filepath.Join(keep, "operator-"+label+".log"), b, 0o644)
			}
		}
		os.RemoveAll(tmp)
	}
}

// measure starts the binary, waits for n classes and a settled operand, then watches an idle window.
func measure(t *testing.T, world *framework.World, bin string, n int, idle time.Duration) result {
	started := time.Now()
	cmd, stop := startBinary(t, world, bin, strconv.Itoa(n))
	defer stop()
	r := result{shareTypes: n}
	r.startup = waitForClasses(t, world, n, started)
	settle(t, world)

	audit := world.AuditLogPath()
	before := snapshot(t, world, cmd.Process.Pid)
	from := time.Now()
	time.Sleep(idle) // the idle window is what is measured: nothing happens in it by design
	to := time.Now()
	after := snapshot(t, world, cmd.Process.Pid)
	r.kube = countAudit(t, audit, from, to)
	r.keystone = after.keystone - before.keystone
	r.manila = after.manila - before.manila
	r.cpu = after.cpu - before.cpu
	r.rssKiB, r.anonKiB = after.rssKiB, after.anonKiB
	r.window = to.Sub(from)
	r.ran.from, r.ran.to = started, to
	return r
}
