// Command bench measures the built operator binary as users run it: a separate process started with
// the manifest's `start` arguments against the real test world, under its ServiceAccount, in a memory
// cgroup of its own. For 5 and for 1,000 share types it prints, from outside the process: the time
// from start to all StorageClasses; over an idle window (BENCH_IDLE, default 5m) its kube-apiserver
// requests (from the apiserver's audit log), Keystone logins and other Keystone requests and Manila
// requests per poll (from their logs), CPU seconds, VmRSS and the working set as the kubelet counts it
// (from its cgroup); then the time from a new share type in Manila to its class. Beside each figure
// the predecessor has, it prints the predecessor's and the ratio. Last, the cluster's scale (scale.go):
// the same figures on an empty cluster and on one with BENCH_SCALE's claims, ConfigMaps and Secrets
// in other namespaces (BENCH_SCALE=off skips it, BENCH_ONLY=scale runs it alone). Then hosted
// (hosted.go): N hosted operators on one management kube-apiserver, this one and csi-operator's, for
// each N of BENCH_HOSTED (default 1,10,30; off skips it, BENCH_ONLY=hosted runs it alone; the largest N
// idles BENCH_HOSTED_IDLE, by default 15 minutes, to hold the watches' renewals). BENCH_TYPES,
// BENCH_ENV and BENCH_LOG_DIR help look into a figure.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
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
	poll := pollInterval(t, world, bin)
	switch os.Getenv("BENCH_ONLY") {
	case "scale": // the cluster-scale table alone
		benchScale(ctx, t, bin, idle, poll)
		return
	case "hosted": // the hosted tables alone
		benchHosted(ctx, t, bin, idle)
		return
	}
	var results []result
	created := 0
	for _, n := range counts {
		if created < n {
			createTypes(ctx, t, world, created, n)
		}
		// The type created to time a new type's class takes the next name, so the next count
		// creates only the rest.
		results = append(results, measure(t, world, operatorSubject(bin), n, idle, poll, fmt.Sprintf("bench-%04d", n)))
		created = n + 1
	}
	// The predecessor in a world of its own, after ours is stopped: nothing of either operator is
	// left for the other to adopt, and the two never share the machine.
	var theirs *predecessorRun
	if pred := os.Getenv("BENCH_PREDECESSOR_BINARY"); pred != "" {
		theirs = measurePredecessor(ctx, t, pred, counts, idle)
	}
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	printTable(results, theirs, info.Size(), idle)
	last := results[len(results)-1]
	printInformerCosts(informerCosts(t, world, operatorWatches(t, world.AuditLogPath(), last.ran.from, last.ran.to)), last.shareTypes)
	printClaimTiming(timeClaim(t, world, bin, "bench-0000"))

	if os.Getenv("BENCH_SCALE") != "off" {
		benchScale(ctx, t, bin, idle, poll)
	}
	if os.Getenv("BENCH_HOSTED") != "off" {
		benchHosted(ctx, t, bin, idle)
	}
}

// benchScale measures the cluster's scale, not Manila's: ours, and the predecessor when it is
// measured, each in a world of its own, on an empty cluster and on a big one.
func benchScale(ctx context.Context, t *testing.T, bin string, idle, poll time.Duration) {
	spec := bigClusterSpec(t)
	const types = 5
	runs := []scaleRun{measureScale(ctx, t, "this operator", func(*testing.T, *framework.World) subject { return operatorSubject(bin) },
		spec, types, idle, poll)}
	if pred := os.Getenv("BENCH_PREDECESSOR_BINARY"); pred != "" {
		runs = append(runs, measureScale(ctx, t, predecessorName, func(t *testing.T, w *framework.World) subject {
			return predecessorSubject(ctx, t, w, pred)
		}, spec, types, idle, time.Minute))
	}
	printScaleTable(runs, spec, types, idle)
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

// operator is the started binary, the memory cgroup it runs in, and when it was started (just
// before its exec: after its page cache drop and its cgroup's setup).
type operator struct {
	cmd     *exec.Cmd
	cg      memcg
	started time.Time
}

// subject is a binary the bench measures and how it is started: the operator as its manifest runs
// it, or the predecessor (predecessor.go).
type subject struct {
	bin string
	// command returns its arguments and environment, with tmp as its TMPDIR.
	command func(t *testing.T, world *framework.World, tmp string) framework.OperatorCommand
	// wrap, when set, returns the command line that runs bin with args (the same process, by exec).
	wrap func(bin string, args []string) (string, []string)
}

func operatorSubject(bin string) subject {
	return subject{bin: bin, command: func(t *testing.T, world *framework.World, tmp string) framework.OperatorCommand {
		return world.OperatorCommandFor(t, tmp)
	}}
}

// startBinary starts the subject (plus BENCH_ENV), in a memory cgroup of its own when it can, and
// returns it with the function that stops it (and keeps its log in BENCH_LOG_DIR, as
// operator-<label>.log).
func startBinary(t *testing.T, world *framework.World, s subject, label string) (operator, func()) {
	bin := s.bin
	tmp, err := os.MkdirTemp("", "manila-bench-")
	if err != nil {
		t.Fatal(err)
	}
	command := s.command(t, world, tmp)
	logFile, err := os.Create(filepath.Join(tmp, "operator.log"))
	if err != nil {
		t.Fatal(err)
	}
	if err := dropFromPageCache(bin); err != nil {
		t.Fatal(err)
	}
	cg := newMemcg(fmt.Sprintf("manila-bench-%d-%s", os.Getpid(), label))
	name, args := bin, command.Args
	if s.wrap != nil {
		name, args = s.wrap(bin, args)
	}
	cmd := cg.command(name, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = command.Env, logFile, logFile
	if extra := os.Getenv("BENCH_ENV"); extra != "" { // e.g. GODEBUG=gctrace=1, to look into a figure
		cmd.Env = append(cmd.Env, strings.Fields(extra)...)
	}
	started := time.Now()
	process, err := framework.StartProcess(cmd)
	if err != nil {
		cg.remove()
		t.Fatal(err)
	}
	return operator{cmd: cmd, cg: cg, started: started}, func() {
		process.Stop(30 * time.Second)
		cg.remove()
		logFile.Close()
		if keep := os.Getenv("BENCH_LOG_DIR"); keep != "" {
			if b, err := os.ReadFile(logFile.Name()); err == nil {
				_ = os.WriteFile(filepath.Join(keep, "operator-"+label+".log"), b, 0o644)
			}
		}
		os.RemoveAll(tmp)
	}
}

// pollInterval is how often the binary polls Manila as the manifest runs it: the manifest's
// --manila-poll-interval, or the flag's default as the binary's help states it.
func pollInterval(t *testing.T, world *framework.World, bin string) time.Duration {
	tmp := t.TempDir()
	for _, a := range world.OperatorCommandFor(t, tmp).Args {
		if v, ok := strings.CutPrefix(a, "--manila-poll-interval="); ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatalf("the manifest's %s: %v", a, err)
			}
			return d
		}
	}
	help, _ := exec.Command(bin, "start", "--help").CombinedOutput()
	m := regexp.MustCompile(`--manila-poll-interval duration .*\(default ([^)]+)\)`).FindSubmatch(help)
	if m == nil {
		t.Fatalf("%s start --help names no default for --manila-poll-interval:\n%s", bin, help)
	}
	d, err := time.ParseDuration(string(m[1]))
	if err != nil {
		t.Fatalf("the default --manila-poll-interval %q: %v", m[1], err)
	}
	return d
}

// measure starts the binary, waits for n classes and a settled operand, watches an idle window, and
// then times how long a share type created in Manila (newType, unless empty) takes to become a class.
func measure(t *testing.T, world *framework.World, s subject, n int, idle, poll time.Duration, newType string) result {
	op, stop := startBinary(t, world, s, strconv.Itoa(n))
	defer stop()
	started := op.started
	r := result{shareTypes: n, poll: poll}
	r.startup = waitForClasses(t, world, n, started)
	settle(t, world)

	audit := world.AuditLogPath()
	pid := op.cmd.Process.Pid
	before := snapshot(t, world, pid)
	from := time.Now()
	time.Sleep(idle) // the idle window is what is measured: nothing happens in it by design
	to := time.Now()
	after := snapshot(t, world, pid)
	r.kube = countAudit(t, audit, from, to)
	r.keystoneLogins = after.keystoneLogins - before.keystoneLogins
	r.keystoneOther = after.keystoneOther - before.keystoneOther
	r.manila = after.manila - before.manila
	r.cpu = after.cpu - before.cpu
	r.rssKiB, r.anonKiB = after.rssKiB, after.anonKiB
	ws, err := op.cg.read(pid)
	if err != nil {
		t.Fatalf("reading the operator's working set: %v", err)
	}
	r.memory = ws
	r.window = to.Sub(from)
	r.ran.from, r.ran.to = started, to

	if newType == "" {
		return r
	}
	// After the window, so neither the bench's own requests nor the operator's work on the new type
	// fall in it. The class can take up to one poll interval: the poll's phase decides.
	if _, err := world.OpenStack.CreateShareType(context.Background(), framework.ShareTypeSpec{Name: newType}); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	waitForClassOf(t, world, newType)
	r.newTypeToClass = time.Since(created)
	return r
}
