package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// operatorUser is who the operator is to kube-apiserver: its ServiceAccount.
var operatorUser = "system:serviceaccount:" + names.OperatorNamespace + ":" + names.OperatorName

type result struct {
	shareTypes      int
	startup, window time.Duration
	// poll is the operator's poll interval; newTypeToClass how long a share type created after the
	// idle window took to become a class.
	poll, newTypeToClass time.Duration
	kube                 auditCounts
	// keystoneLogins are token issues (POST /v3/auth/tokens); keystoneOther every other request.
	keystoneLogins, keystoneOther, manila int
	cpu                                   time.Duration
	rssKiB, anonKiB                       int
	memory                                workingSet
	// ran is from the process's start to the end of its idle window.
	ran struct{ from, to time.Time }
}

// driverClasses are the StorageClasses of the Manila driver by share type (parameter `type`): the
// operator's or the predecessor's, whichever runs (the bench's worlds hold no other).
func driverClasses(ctx context.Context, world *framework.World) (map[string]bool, error) {
	types, _, err := driverClassesByName(ctx, world)
	return types, err
}

// driverClassesByName returns the driver's classes' share types and their names.
func driverClassesByName(ctx context.Context, world *framework.World) (types, classNames map[string]bool, err error) {
	list, err := world.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, err
	}
	types, classNames = map[string]bool{}, map[string]bool{}
	for _, sc := range list.Items {
		if sc.Provisioner == names.CSIDriverName {
			types[sc.Parameters["type"]] = true
			classNames[sc.Name] = true
		}
	}
	return types, classNames, nil
}

// waitForClasses waits for n of the driver's classes and returns the time from started to the last
// of them created since, as kube-apiserver's audit log stamps the create's response (to the
// microsecond): the figure holds neither this wait's polling nor its reading. When none was created
// since started (all existed), it is the time they were seen.
func waitForClasses(t *testing.T, world *framework.World, n int, started time.Time) time.Duration {
	var classNames map[string]bool
	framework.Eventually(t, 10*time.Minute, fmt.Sprintf("%d StorageClasses", n), func(ctx context.Context) error {
		types, byName, err := driverClassesByName(ctx, world)
		if err != nil {
			return err
		}
		if len(types) < n {
			return fmt.Errorf("%d of %d", len(types), n)
		}
		classNames = byName
		return nil
	})
	seen := time.Now()
	if last := lastCreated(t, world.AuditLogPath(), "storageclasses", classNames, started); !last.IsZero() {
		return last.Sub(started)
	}
	return seen.Sub(started)
}

// lastCreated is when the last successful create of a resource named in objectNames, received
// after since, completed (its audit event's stage timestamp); zero when there was none.
func lastCreated(t *testing.T, path, resource string, objectNames map[string]bool, since time.Time) time.Time {
	var last time.Time
	for _, e := range readAuditOf(t, path, func(string) bool { return true }) {
		if e.Verb != "create" || e.resource() != resource || !objectNames[e.ObjectRef.Name] ||
			e.ResponseStatus == nil || e.ResponseStatus.Code != http.StatusCreated || e.received().Before(since) {
			continue
		}
		if at := e.StageTimestamp.Time; at.After(last) {
			last = at
		}
	}
	return last
}

func waitForClassOf(t *testing.T, world *framework.World, shareType string) {
	framework.Eventually(t, framework.DefaultTimeout, "the StorageClass of share type "+shareType, func(ctx context.Context) error {
		types, err := driverClasses(ctx, world)
		if err != nil {
			return err
		}
		if !types[shareType] {
			return fmt.Errorf("none among %d classes", len(types))
		}
		return nil
	})
}

// settle waits until the operand exists and the operator has written nothing but its lease for 30 s.
func settle(t *testing.T, world *framework.World) {
	world.WaitForDeployment(t, nil)
	settleOn(t, world.AuditLogPath(), isOperatorUser)
}

// settleOn waits until the users who matches have written nothing but leases for 30 s, as the audit
// log at path shows.
func settleOn(t *testing.T, path string, who func(string) bool) {
	framework.Eventually(t, 5*time.Minute, "30 s without a write by the operator", func(context.Context) error {
		last := time.Time{}
		for _, e := range readAuditOf(t, path, who) {
			if e.write() && e.resource() != "leases" && e.received().After(last) {
				last = e.received()
			}
		}
		if quiet := time.Since(last); quiet < 30*time.Second {
			return fmt.Errorf("last write %s ago", quiet.Round(time.Second))
		}
		return nil
	})
}

// auditEvent is one request in kube-apiserver's audit log.
type auditEvent struct{ auditv1.Event }

func (e auditEvent) resource() string {
	if e.ObjectRef == nil {
		return "" // a non-resource URL
	}
	return e.ObjectRef.Resource
}

func (e auditEvent) received() time.Time { return e.RequestReceivedTimestamp.Time }

func (e auditEvent) write() bool {
	switch e.Verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return true
	}
	return false
}

// isOperatorUser says whether user is the standalone operator's ServiceAccount (also the hosted
// operator's identity in its guest).
func isOperatorUser(user string) bool { return user == operatorUser }

// readAudit returns the operator's requests, one per audit ID.
func readAudit(t *testing.T, path string) []auditEvent { return readAuditOf(t, path, isOperatorUser) }

// readAuditOf returns the requests of the users who matches, one per audit ID (its first stage).
func readAuditOf(t *testing.T, path string, who func(string) bool) []auditEvent {
	seen := map[string]bool{}
	var out []auditEvent
	scanAudit(t, path, func(e auditEvent) {
		if who(e.User.Username) && !seen[string(e.AuditID)] {
			seen[string(e.AuditID)] = true
			out = append(out, e)
		}
	})
	return out
}

// scanAudit calls fn with each event of the audit log at path, every stage of each request.
func scanAudit(t *testing.T, path string, fn func(auditEvent)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if json.Unmarshal(sc.Bytes(), &e.Event) == nil {
			fn(e)
		}
	}
}

// meanWatchLife is the mean time from open to close of the watches of the users who matches that
// closed between from and to (the audit log's ResponseComplete of each watch), so not the ones a
// stop of the process cut; zero when none closed.
func meanWatchLife(t *testing.T, path string, who func(string) bool, from, to time.Time) time.Duration {
	var sum time.Duration
	n := 0
	scanAudit(t, path, func(e auditEvent) {
		closed := e.StageTimestamp.Time
		if e.Verb != "watch" || e.Stage != auditv1.StageResponseComplete || !who(e.User.Username) || closed.Before(from) || closed.After(to) {
			return
		}
		sum += closed.Sub(e.RequestReceivedTimestamp.Time)
		n++
	})
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// auditCounts are the operator's kube-apiserver requests in a window, by kind.
type auditCounts struct {
	total, gets, lists, watches, writes, leases, events int
	byRequest                                           map[string]int
}

func countAudit(t *testing.T, path string, from, to time.Time) auditCounts {
	return countAuditOf(t, path, isOperatorUser, from, to)
}

// add adds o's counts to c's.
func (c *auditCounts) add(o auditCounts) {
	c.total += o.total
	c.gets += o.gets
	c.lists += o.lists
	c.watches += o.watches
	c.writes += o.writes
	c.leases += o.leases
	c.events += o.events
	if c.byRequest == nil {
		c.byRequest = map[string]int{}
	}
	for k, v := range o.byRequest {
		c.byRequest[k] += v
	}
}

// countAuditOf counts the requests of the users who matches between from and to.
func countAuditOf(t *testing.T, path string, who func(string) bool, from, to time.Time) auditCounts {
	c := auditCounts{byRequest: map[string]int{}}
	for _, e := range readAuditOf(t, path, who) {
		if e.received().Before(from) || e.received().After(to) {
			continue
		}
		c.total++
		c.byRequest[e.Verb+" "+e.resource()]++
		switch {
		case e.resource() == "leases":
			c.leases++
		case e.resource() == "events":
			c.events++
		case e.Verb == "get":
			c.gets++
		case e.Verb == "list":
			c.lists++
		case e.Verb == "watch":
			c.watches++
		case e.write():
			c.writes++
		}
	}
	return c
}

type sample struct {
	keystoneLogins, keystoneOther, manila int
	cpu                                   time.Duration
	rssKiB, anonKiB                       int
}

var (
	logRequest = regexp.MustCompile(`"(GET|POST|PUT|PATCH|DELETE|HEAD) /`)
	// uwsgi's default request line: "... [date] POST /v3/auth/tokens => generated 4961 bytes in ...".
	uwsgiRequest = regexp.MustCompile(`\] (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) => generated `)
)

// snapshot reads the OpenStack services' request counts from their logs and the process's CPU and
// memory from /proc.
func snapshot(t *testing.T, world *framework.World, pid int) sample {
	s := sample{
		// manila-all when the API runs in one process with the scheduler and share service.
		manila: len(logRequest.FindAllStringIndex(world.OpenStack.Log("manila-api")+world.OpenStack.Log("manila-all"), -1)),
	}
	// Keystone's log does not say who asked: besides the operator's, Manila's keystonemiddleware
	// logs in as its service user when it has no valid token (its token lasts the world's day) and
	// validates each new token it is shown (GET /v3/auth/tokens).
	for _, m := range uwsgiRequest.FindAllStringSubmatch(world.OpenStack.Log("keystone-uwsgi"), -1) {
		path, _, _ := strings.Cut(m[2], "?")
		if m[1] == "POST" && strings.TrimSuffix(path, "/") == "/v3/auth/tokens" {
			s.keystoneLogins++
		} else {
			s.keystoneOther++
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the parenthesised command name; utime and stime are the 14th and 15th, in ticks.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.Atoi(fields[11])
	stime, _ := strconv.Atoi(fields[12])
	s.cpu = time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
	status, err := readKeyed(fmt.Sprintf("/proc/%d/status", pid), 1)
	if err != nil {
		t.Fatal(err)
	}
	s.rssKiB, s.anonKiB = int(status["VmRSS:"]), int(status["RssAnon:"])
	return s
}

// The predecessor, OpenShift's csi-driver-manila-operator at e5927046, as issue 20 quotes it measured
// on the same world: kube-apiserver requests per idle minute, VmRSS in MB, CPU seconds per 5 idle
// minutes. A run with BENCH_PREDECESSOR_BINARY measures it instead and shows those figures.
const (
	predecessorName           = "OpenShift's operator (e5927046)"
	predecessorKubePerMinute  = 24.4
	predecessorRSSMB          = 87.0
	predecessorCPUPer5Minutes = 0.79
)

func printTable(results []result, theirs *predecessorRun, binarySize int64, idle time.Duration) {
	perMin := func(n int, r result) float64 { return float64(n) / r.window.Minutes() }
	mb := func(kib int) float64 { return float64(kib) * 1024 / 1e6 }
	cpuPer5 := func(r result) float64 { return r.cpu.Seconds() * (5 * time.Minute).Seconds() / r.window.Seconds() }
	polls := func(r result) float64 { return r.window.Seconds() / r.poll.Seconds() }
	// row prints a figure the predecessor is not compared on, for each result, and the predecessor's
	// when it was measured in this run.
	row := func(figure, goal string, value func(r result) string) {
		fmt.Printf("| %s |", figure)
		for _, r := range results {
			fmt.Printf(" %s |", value(r))
		}
		their := "-"
		if theirs != nil {
			var values []string
			for _, r := range theirs.results {
				values = append(values, value(r))
			}
			their = strings.Join(values, ", ")
		}
		fmt.Printf(" %s | - | %s |\n", their, goal)
	}
	// ours prints a figure only ours has.
	ours := func(figure, goal string, value func(r result) string) {
		fmt.Printf("| %s |", figure)
		for _, r := range results {
			fmt.Printf(" %s |", value(r))
		}
		fmt.Printf(" - | - | %s |\n", goal)
	}
	// compared prints a figure the predecessor is compared on: ours for each result; theirs, measured
	// in this run for each share-type count or else as quoted; and ours / theirs for each result.
	compared := func(figure, goal, format string, quoted float64, value func(r result) float64) {
		fmt.Printf("| %s |", figure)
		var theirValues, ratios []string
		for i, r := range results {
			fmt.Printf(" "+format+" |", value(r))
			their := quoted
			if theirs != nil {
				their = value(theirs.results[i])
				theirValues = append(theirValues, fmt.Sprintf(format, their))
			}
			ratios = append(ratios, fmt.Sprintf("%.2f", value(r)/their))
		}
		if theirs == nil {
			theirValues = []string{fmt.Sprintf(format, quoted)}
		}
		fmt.Printf(" %s | %s | %s |\n", strings.Join(theirValues, ", "), strings.Join(ratios, ", "), goal)
	}
	fixed := func(format string, f func(r result) float64) func(r result) string {
		return func(r result) string { return fmt.Sprintf(format, f(r)) }
	}
	fmt.Println()
	fmt.Printf("| figure (idle window %s) |", idle)
	for _, r := range results {
		fmt.Printf(" %d share types |", r.shareTypes)
	}
	heading := predecessorName + ", as issue 20 quotes it"
	if theirs != nil {
		heading = predecessorName + ", measured in this run"
	}
	fmt.Printf(" %s | ratio (ours / theirs) | goal |\n", heading)
	fmt.Println("|---|" + strings.Repeat("---|", len(results)) + "---|---|---|")
	compared("kube-apiserver requests per minute", "<= predecessor", "%.1f", predecessorKubePerMinute,
		func(r result) float64 { return perMin(r.kube.total, r) })
	row("of which GETs of objects", "-", fixed("%.1f", func(r result) float64 { return perMin(r.kube.gets, r) }))
	row("of which lease renewals (get + update)", "-", fixed("%.1f", func(r result) float64 { return perMin(r.kube.leases, r) }))
	row("of which lists, watches (re)opened, writes, events", "-", func(r result) string {
		return fmt.Sprintf("%.1f, %.1f, %.1f, %.1f", perMin(r.kube.lists, r), perMin(r.kube.watches, r), perMin(r.kube.writes, r), perMin(r.kube.events, r))
	})
	row("Keystone logins (POST /v3/auth/tokens) in the idle window", "0 logins at rest", func(r result) string {
		return strconv.Itoa(r.keystoneLogins)
	})
	row("other Keystone requests per minute", "-", fixed("%.1f", func(r result) float64 { return perMin(r.keystoneOther, r) }))
	row("Manila requests per poll (requests / polls the window holds)", "1 per poll", func(r result) string {
		return fmt.Sprintf("%.2f (%d / %.1f of %s)", float64(r.manila)/polls(r), r.manila, polls(r), r.poll)
	})
	compared("operator VmRSS at the end", "<= predecessor", "%.1f MB", predecessorRSSMB,
		func(r result) float64 { return mb(r.rssKiB) })
	row("of which anonymous (RssAnon; the rest are the binary's file pages)", "-", fixed("%.1f MB", func(r result) float64 { return mb(r.anonKiB) }))
	row("working set at the end, as the kubelet counts it (usage - inactive file)", "-", fixed("%.1f MB", func(r result) float64 { return mb(r.memory.workingSetKiB) }))
	row("of which anonymous, active file; inactive file (not counted)", "-", func(r result) string {
		return fmt.Sprintf("%.1f, %.1f; %.1f MB", mb(r.memory.anonKiB), mb(r.memory.activeFileKiB), mb(r.memory.inactiveFileKiB))
	})
	compared("CPU seconds per 5 idle minutes", "<= predecessor", "%.2f", predecessorCPUPer5Minutes, cpuPer5)
	row("start to all StorageClasses", "kept", func(r result) string { return r.startup.Round(time.Millisecond).String() })
	ours("new share type in Manila to its class", "within one poll", func(r result) string {
		return fmt.Sprintf("%s (poll %s)", r.newTypeToClass.Round(100*time.Millisecond), r.poll)
	})
	fmt.Printf("\nbinary size: %.1f MB\n", float64(binarySize)/1e6)
	fmt.Printf("working set: %s\n", results[len(results)-1].memory.method)
	byRequest := func(who string, r result) {
		var keys []string
		for k := range r.kube.byRequest {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return r.kube.byRequest[keys[i]] > r.kube.byRequest[keys[j]] })
		fmt.Printf("\n%s kube-apiserver requests in the idle window with %d share types, by verb and resource:\n", who, r.shareTypes)
		for _, k := range keys {
			fmt.Printf("  %-40s %d\n", k, r.kube.byRequest[k])
		}
	}
	for _, r := range results {
		byRequest("The operator's", r)
	}
	if theirs != nil {
		fmt.Printf("\npredecessor binary: %s\n", theirs.bin)
		for _, r := range theirs.results {
			byRequest("The predecessor's", r)
		}
	}
}
