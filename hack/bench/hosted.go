package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The hosted bench: N hosted operators, each in an HCP namespace of one management kube-apiserver
// and each serving a guest cluster of its own (its own kube-apiserver and etcd), all against the
// world's one Keystone and Manila. It measures this operator as manifests/hosted runs it and
// csi-operator's openstack-manila-csi-driver-operator (the operator HyperShift runs today) as
// cluster-storage-operator's hosted Deployment runs it, one after the other on the same guests.

// hcpNamespace is the i-th hosted cluster's HCP namespace.
func hcpNamespace(i int) string { return fmt.Sprintf("clusters-bench-%02d", i) }

// hostedLevels are BENCH_HOSTED's counts of hosted clusters (default 1, 10 and 30).
func hostedLevels(t *testing.T) []int {
	v := os.Getenv("BENCH_HOSTED")
	if v == "" {
		return []int{1, 10, 30}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			t.Fatalf("BENCH_HOSTED: %q is not a count of hosted clusters", f)
		}
		out = append(out, n)
	}
	return out
}

// hostedKind is one operator as it runs hosted: how it is started for a hosted world.
type hostedKind struct {
	name string
	// subject is the operator for hw; called once per start.
	subject func(t *testing.T, hw *framework.HostedWorld) subject
}

// hostedLevel is one kind measured with n hosted clusters: the sums over its n processes.
type hostedLevel struct {
	n                         int
	startup, window           time.Duration
	mgmt, guest               auditCounts
	mgmtWatches, guestWatches int
	// mgmtWatchLife is the mean life of the management-side watches that ended in the run (client-go
	// re-opens each after 5 to 10 minutes); zero when none ended.
	mgmtWatchLife time.Duration
	// watchList is the first hosted cluster's operator's watches, on each side.
	mgmtWatchList, guestWatchList []watchSpec
	cpu                           time.Duration
	rssKiB, anonKiB, wsKiB        int
}

type hostedRun struct {
	name   string
	levels []hostedLevel
}

// benchHosted starts the management world and max(levels) hosted clusters, then measures each kind
// at each level.
func benchHosted(ctx context.Context, t *testing.T, bin string, idle time.Duration) {
	levels := hostedLevels(t)
	world, err := framework.StartWorldWith(ctx, framework.OpenStackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(world.Stop)
	const types = 5
	createTypes(ctx, t, world, 0, types)
	most := 0
	for _, n := range levels {
		most = max(most, n)
	}
	started := time.Now()
	hosted := make([]*framework.HostedWorld, most)
	for i := range hosted {
		hosted[i] = world.StartHosted(t, framework.HostedOptions{HCPNamespace: hcpNamespace(i),
			Guest: framework.GuestOptions{InfrastructureName: fmt.Sprintf("bench-guest-%02d", i)}})
		hosted[i].CreateHostedControlPlane(t, map[string]any{})
		seedHCPNamespace(ctx, t, hosted[i])
	}
	fmt.Printf("%d hosted clusters up in %s\n", most, time.Since(started).Round(time.Second))

	kinds := []hostedKind{{name: "this operator", subject: oursHosted(bin)}}
	if theirs := os.Getenv("BENCH_CSI_OPERATOR_BINARY"); theirs != "off" {
		if theirs == "" {
			theirs = framework.RealPredecessorBinary(t, framework.Predecessor418)
		}
		kinds = append(kinds, hostedKind{name: "csi-operator (4.18+)", subject: csiOperatorHosted(theirs)})
	}
	long := hostedLongWindow(t, idle)
	var runs []hostedRun
	for _, kind := range kinds {
		run := hostedRun{name: kind.name}
		for _, n := range levels {
			window := idle
			if n == most {
				window = long
			}
			run.levels = append(run.levels, measureHosted(t, world, hosted[:n], kind, types, window))
		}
		runs = append(runs, run)
	}
	printHostedTables(runs, types, idle, long)
}

// hostedLongWindow is the idle window at the largest N: BENCH_HOSTED_IDLE, or else at least 15
// minutes, longer than a watch lives (client-go re-opens a watch after 5 to 10 minutes), so that the
// window holds the renewal of every watch opened at the start.
func hostedLongWindow(t *testing.T, idle time.Duration) time.Duration {
	if v := os.Getenv("BENCH_HOSTED_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("BENCH_HOSTED_IDLE: %v", err)
		}
		return d
	}
	return max(idle, 15*time.Minute)
}

// measureHosted starts kind's operator for each of hosted (the guests' classes and the HCP
// namespaces' operands deleted first, so every start does the same work), waits for every guest's
// classes and 30 s without a write, watches the idle window, and stops them.
func measureHosted(t *testing.T, world *framework.World, hosted []*framework.HostedWorld, kind hostedKind, types int, idle time.Duration) hostedLevel {
	ctx := context.Background()
	for _, hw := range hosted {
		resetDriver(ctx, t, &framework.World{ControlPlane: hw.Guest})
		if err := hw.Kube.AppsV1().Deployments(hw.HCPNamespace).Delete(ctx, "openstack-manila-csi-controllerplugin", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	started := time.Now()
	ops := make([]operator, len(hosted))
	for i, hw := range hosted {
		op, stop := startBinary(t, hw.World, kind.subject(t, hw), fmt.Sprintf("hosted-%d-%02d", len(hosted), i))
		defer stop()
		ops[i] = op
	}
	level := hostedLevel{n: len(hosted)}
	for _, hw := range hosted {
		waitForClasses(t, &framework.World{ControlPlane: hw.Guest}, types, started)
	}
	level.startup = time.Since(started)
	mgmtUser := func(user string) bool { return strings.HasPrefix(user, "system:serviceaccount:clusters-bench-") }
	settleOn(t, world.AuditLogPath(), mgmtUser)
	for _, hw := range hosted {
		settleOn(t, hw.Guest.AuditLogPath(), isOperatorUser)
	}

	before := make([]sample, len(ops))
	for i, op := range ops {
		before[i] = snapshot(t, world, op.cmd.Process.Pid)
	}
	from := time.Now()
	time.Sleep(idle) // the idle window is what is measured: nothing happens in it by design
	to := time.Now()
	level.window = to.Sub(from)
	level.mgmt = countAuditOf(t, world.AuditLogPath(), mgmtUser, from, to)
	level.mgmtWatches = len(watchesOf(t, world.AuditLogPath(), mgmtUser, started, to))
	level.mgmtWatchLife = meanWatchLife(t, world.AuditLogPath(), mgmtUser, started, to)
	first := "system:serviceaccount:" + hosted[0].HCPNamespace + ":" + names.OperatorName
	level.mgmtWatchList = watchesOf(t, world.AuditLogPath(), func(u string) bool { return u == first }, started, to)
	level.guestWatchList = watchesOf(t, hosted[0].Guest.AuditLogPath(), isOperatorUser, started, to)
	for _, hw := range hosted {
		g := countAuditOf(t, hw.Guest.AuditLogPath(), isOperatorUser, from, to)
		level.guest.add(g)
		level.guestWatches += len(watchesOf(t, hw.Guest.AuditLogPath(), isOperatorUser, started, to))
	}
	for i, op := range ops {
		after := snapshot(t, world, op.cmd.Process.Pid)
		level.cpu += after.cpu - before[i].cpu
		level.rssKiB += after.rssKiB
		level.anonKiB += after.anonKiB
		ws, err := op.cg.read(op.cmd.Process.Pid)
		if err != nil {
			t.Fatalf("reading a hosted operator's working set: %v", err)
		}
		level.wsKiB += ws.workingSetKiB
	}
	fmt.Printf("%s with %d hosted clusters: measured\n", kind.name, len(hosted))
	return level
}

// oursHosted is this operator as manifests/hosted runs it (framework.HostedOperatorCommandFor: its
// management ServiceAccount and Role, the guest identity with manifests/hosted/guest.yaml's RBAC,
// the guest kubeconfig Secret mounted, manila-cloud-credentials in the HCP namespace).
func oursHosted(bin string) func(*testing.T, *framework.HostedWorld) subject {
	return func(_ *testing.T, hw *framework.HostedWorld) subject {
		return subject{bin: bin, command: func(t *testing.T, _ *framework.World, tmp string) framework.OperatorCommand {
			cmd, _ := hw.HostedOperatorCommandFor(t, tmp)
			return cmd
		}}
	}
}

// csiOperatorHosted is csi-operator's Manila operator as cluster-storage-operator's hosted Deployment
// runs it: `start --guest-kubeconfig`, the HCP namespace as its namespace, clouds.yaml at
// /etc/openstack (hack/at-paths.sh), the operand images in its environment. Its identities are the
// same ServiceAccounts as this operator's (so the audit log counts both alike), bound to cluster-admin
// on both sides: HyperShift's guest kubeconfig is an admin's, and CSO's management Role is not what
// is measured.
func csiOperatorHosted(bin string) func(*testing.T, *framework.HostedWorld) subject {
	return func(t *testing.T, hw *framework.HostedWorld) subject {
		mgmtKubeconfig, guestKubeconfig := hw.PrepareHostedOperator(t)
		ctx := context.Background()
		bindClusterAdmin(ctx, t, hw.ControlPlane, hw.HCPNamespace)
		bindClusterAdmin(ctx, t, hw.Guest, names.OperatorNamespace)
		dir := t.TempDir()
		mgmtPath := filepath.Join(dir, "mgmt.kubeconfig")
		openstackDir := filepath.Join(dir, "openstack")
		if err := os.MkdirAll(openstackDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mgmtPath, mgmtKubeconfig, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(openstackDir, "clouds.yaml"), hw.OpenStack.CloudsYAML(), 0o600); err != nil {
			t.Fatal(err)
		}
		return subject{bin: bin, wrap: atPaths(t, openstackDir+"=/etc/openstack"),
			command: func(t *testing.T, _ *framework.World, tmp string) framework.OperatorCommand {
				port, err := framework.FreePort()
				if err != nil {
					t.Fatal(err)
				}
				env := []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + tmp}
				for name, image := range framework.TestImages {
					env = append(env, name+"="+image)
				}
				return framework.OperatorCommand{Port: port, Env: env, Args: []string{"start", "-v=2",
					"--kubeconfig=" + mgmtPath, "--namespace=" + hw.HCPNamespace, "--guest-kubeconfig=" + guestKubeconfig,
					"--listen=127.0.0.1:" + strconv.Itoa(port)}}
			}}
	}
}

// seedHCPNamespace gives the HCP namespace what HyperShift's control plane keeps there besides the
// Manila operator, in number and size of the same order (a 4.x HCP namespace holds some 60
// ConfigMaps, two of them CA bundles of some 200 KiB, and some 100 Secrets of certificates, keys and
// kubeconfigs): what an operator that caches the namespace's ConfigMaps or Secrets pays for.
func seedHCPNamespace(ctx context.Context, t *testing.T, hw *framework.HostedWorld) {
	cms := hw.Kube.CoreV1().ConfigMaps(hw.HCPNamespace)
	size := func(i int) int {
		switch {
		case i < 2:
			return 220 << 10
		case i < 10:
			return 32 << 10
		}
		return 4 << 10
	}
	for i := 0; i < 60; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("control-plane-config-%02d", i)},
			Data: map[string]string{"config": strings.Repeat("c", size(i))}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	secrets := hw.Kube.CoreV1().Secrets(hw.HCPNamespace)
	for i := 0; i < 100; i++ {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("control-plane-cert-%03d", i)},
			Data: map[string][]byte{"tls.crt": []byte(strings.Repeat("s", 3<<10)), "tls.key": []byte(strings.Repeat("k", 3<<10))}}
		if _, err := secrets.Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// printHostedTables prints, per level, each kind's figures and ours / csi-operator's; then the slope
// per hosted cluster between the smallest and the largest level.
func printHostedTables(runs []hostedRun, types int, idle, long time.Duration) {
	mb := func(kib int) float64 { return float64(kib) * 1024 / 1e6 }
	// Renewals at steady state: each watch re-opened once per mean life, whatever the window's phase
	// (a window that starts with every watch newly opened holds fewer renewals than a later one).
	steadyRenewals := func(l hostedLevel) float64 {
		if l.mgmtWatchLife <= 0 {
			return math.NaN()
		}
		return float64(l.mgmtWatches) / l.mgmtWatchLife.Minutes()
	}
	rows := []struct {
		figure string
		value  func(l hostedLevel) float64
		format string
	}{
		{"start to every guest's classes", func(l hostedLevel) float64 { return l.startup.Seconds() }, "%.1f s"},
		{"VmRSS, summed", func(l hostedLevel) float64 { return mb(l.rssKiB) }, "%.1f MB"},
		{"of which anonymous (RssAnon)", func(l hostedLevel) float64 { return mb(l.anonKiB) }, "%.1f MB"},
		{"working set, summed", func(l hostedLevel) float64 { return mb(l.wsKiB) }, "%.1f MB"},
		{"CPU per 5 idle minutes, summed", func(l hostedLevel) float64 { return l.cpu.Seconds() * (5 * time.Minute).Seconds() / l.window.Seconds() }, "%.2f s"},
		{"management API requests per idle minute", func(l hostedLevel) float64 { return float64(l.mgmt.total) / l.window.Minutes() }, "%.1f"},
		{"of which watches (re)opened", func(l hostedLevel) float64 { return float64(l.mgmt.watches) / l.window.Minutes() }, "%.2f"},
		{"management watch renewals per minute at steady state (watches / their mean life)", steadyRenewals, "%.2f"},
		{"management API requests per minute, renewals at steady state", func(l hostedLevel) float64 {
			return float64(l.mgmt.total-l.mgmt.watches)/l.window.Minutes() + steadyRenewals(l)
		}, "%.1f"},
		{"guest API requests per idle minute, summed", func(l hostedLevel) float64 { return float64(l.guest.total) / l.window.Minutes() }, "%.1f"},
		{"of which watches (re)opened", func(l hostedLevel) float64 { return float64(l.guest.watches) / l.window.Minutes() }, "%.2f"},
		{"watches on the management API", func(l hostedLevel) float64 { return float64(l.mgmtWatches) }, "%.0f"},
		{"watches on the guest APIs, summed", func(l hostedLevel) float64 { return float64(l.guestWatches) }, "%.0f"},
	}
	fmt.Printf("\nHosted: N hosted clusters on one management kube-apiserver, each with its own guest control plane; %d share types, idle window %s (%s at the largest N).\n", types, idle, long)
	for li := range runs[0].levels {
		n := runs[0].levels[li].n
		fmt.Printf("\nN = %d\n\n| figure |", n)
		for _, r := range runs {
			fmt.Printf(" %s |", r.name)
		}
		if len(runs) == 2 {
			fmt.Print(" ours / theirs |")
		}
		fmt.Print("\n|---|")
		for range runs {
			fmt.Print("---|")
		}
		if len(runs) == 2 {
			fmt.Print("---|")
		}
		fmt.Println()
		for _, row := range rows {
			fmt.Printf("| %s |", row.figure)
			for _, r := range runs {
				fmt.Printf(" "+row.format+" |", row.value(r.levels[li]))
			}
			if len(runs) == 2 {
				fmt.Printf(" %s |", ratio(row.value(runs[0].levels[li]), row.value(runs[1].levels[li])))
			}
			fmt.Println()
		}
	}
	if len(runs[0].levels) < 2 {
		return
	}
	fmt.Println("\nPer hosted cluster (the slope between the smallest and the largest N):")
	fmt.Println()
	fmt.Print("| figure |")
	for _, r := range runs {
		fmt.Printf(" %s |", r.name)
	}
	fmt.Print("\n|---|")
	for range runs {
		fmt.Print("---|")
	}
	fmt.Println()
	for _, row := range rows[1:] {
		fmt.Printf("| %s |", row.figure)
		for _, r := range runs {
			lo, hi := r.levels[0], r.levels[len(r.levels)-1]
			fmt.Printf(" "+row.format+" |", (row.value(hi)-row.value(lo))/float64(hi.n-lo.n))
		}
		fmt.Println()
	}
	for _, r := range runs {
		last := r.levels[len(r.levels)-1]
		fmt.Printf("\n%s, management API requests per idle minute by request, N = %d: %s\n", r.name, last.n, requestsPerMinute(last.mgmt, last.window))
		fmt.Printf("%s, guest API requests per idle minute by request, N = %d: %s\n", r.name, last.n, requestsPerMinute(last.guest, last.window))
		fmt.Printf("%s, one operator's watches on the management API: %s\n", r.name, joinWatches(last.mgmtWatchList))
		fmt.Printf("%s, one operator's watches on its guest API: %s\n", r.name, joinWatches(last.guestWatchList))
	}
}

// requestsPerMinute lists c's requests by verb and resource, per minute of window, most first.
func requestsPerMinute(c auditCounts, window time.Duration) string {
	keys := make([]string, 0, len(c.byRequest))
	for k := range c.byRequest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return c.byRequest[keys[i]] > c.byRequest[keys[j]] || c.byRequest[keys[i]] == c.byRequest[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f", k, float64(c.byRequest[k])/window.Minutes())
	}
	return strings.Join(parts, ", ")
}

func joinWatches(specs []watchSpec) string {
	parts := make([]string, len(specs))
	for i, w := range specs {
		parts[i] = w.String()
	}
	return strings.Join(parts, "; ")
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}
