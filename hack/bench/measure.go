package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// operatorUser is who the operator is to kube-apiserver: its ServiceAccount.
var operatorUser = "system:serviceaccount:" + names.OperatorNamespace + ":" + names.OperatorName

type result struct {
	shareTypes       int
	startup, window  time.Duration
	kube             auditCounts
	keystone, manila int
	cpu              time.Duration
	rssKiB, anonKiB  int
	// ran is from the process's start to the end of its idle window.
	ran struct{ from, to time.Time }
}

func waitForClasses(t *testing.T, world *framework.World, n int, started time.Time) time.Duration {
	framework.Eventually(t, 10*time.Minute, fmt.Sprintf("%d StorageClasses", n), func(ctx context.Context) error {
		owned, err := world.OwnedStorageClasses(ctx)
		if err != nil {
			return err
		}
		if len(owned) < n {
			return fmt.Errorf("%d of %d", len(owned), n)
		}
		return nil
	})
	return time.Since(started)
}

// settle waits until the operand exists and the operator has written nothing but its lease for 30 s.
func settle(t *testing.T, world *framework.World) {
	world.WaitForDeployment(t, nil)
	framework.Eventually(t, 5*time.Minute, "30 s without a write by the operator", func(context.Context) error {
		last := time.Time{}
		for _, e := range readAudit(t, world.AuditLogPath()) {
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

// readAudit returns the operator's requests, one per audit ID.
func readAudit(t *testing.T, path string) []auditEvent {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var out []auditEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e auditEvent
		if json.Unmarshal(sc.Bytes(), &e.Event) != nil || e.User.Username != operatorUser || seen[string(e.AuditID)] {
			continue
		}
		seen[string(e.AuditID)] = true
		out = append(out, e)
	}
	return out
}

// auditCounts are the operator's kube-apiserver requests in a window, by kind.
type auditCounts struct {
	total, gets, lists, watches, writes, leases, events int
	byRequest                                           map[string]int
}

func countAudit(t *testing.T, path string, from, to time.Time) auditCounts {
	c := auditCounts{byRequest: map[string]int{}}
	for _, e := range readAudit(t, path) {
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
	keystone, manila int
	cpu              time.Duration
	rssKiB, anonKiB  int
}

var logRequest = regexp.MustCompile(`"(GET|POST|PUT|PATCH|DELETE|HEAD) /`)

// snapshot reads the OpenStack services' request counts from their logs and the process's CPU and
// memory from /proc.
func snapshot(t *testing.T, world *framework.World, pid int) sample {
	s := sample{
		keystone: strings.Count(world.OpenStack.Log("keystone-uwsgi"), " => generated "), // uwsgi logs one line per request
		// manila-all when the API runs in one process with the scheduler and share service.
		manila: len(logRequest.FindAllStringIndex(world.OpenStack.Log("manila-api")+world.OpenStack.Log("manila-all"), -1)),
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
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")), "%d", &s.rssKiB)
		}
		if strings.HasPrefix(line, "RssAnon:") {
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "RssAnon:")), "%d", &s.anonKiB)
		}
	}
	return s
}

func printTable(results []result, binarySize int64, idle time.Duration) {
	perMin := func(n int, r result) string { return fmt.Sprintf("%.1f", float64(n)/r.window.Minutes()) }
	row := func(figure, goal string, value func(r result) string) {
		fmt.Printf("| %s |", figure)
		for _, r := range results {
			fmt.Printf(" %s |", value(r))
		}
		fmt.Printf(" %s |\n", goal)
	}
	fmt.Println()
	fmt.Printf("| figure (idle window %s) |", idle)
	for _, r := range results {
		fmt.Printf(" %d share types |", r.shareTypes)
	}
	fmt.Println(" goal |")
	fmt.Println("|---|" + strings.Repeat("---|", len(results)) + "---|")
	row("kube-apiserver requests per minute", "<= 6", func(r result) string { return perMin(r.kube.total, r) })
	row("of which GETs of objects", "0", func(r result) string { return perMin(r.kube.gets, r) })
	row("of which lease renewals (get + update)", "-", func(r result) string { return perMin(r.kube.leases, r) })
	row("of which lists, watches (re)opened, writes, events", "-", func(r result) string {
		return fmt.Sprintf("%s, %s, %s, %s", perMin(r.kube.lists, r), perMin(r.kube.watches, r), perMin(r.kube.writes, r), perMin(r.kube.events, r))
	})
	row("Keystone requests per minute (its log)", "-", func(r result) string { return perMin(r.keystone, r) })
	row("Manila requests per minute (its log)", "-", func(r result) string { return perMin(r.manila, r) })
	row("operator VmRSS at the end", "<= 64 MiB", func(r result) string { return fmt.Sprintf("%d MiB", r.rssKiB/1024) })
	row("of which anonymous (RssAnon; the rest are the binary's file pages)", "-", func(r result) string { return fmt.Sprintf("%d MiB", r.anonKiB/1024) })
	row("CPU seconds per 5 idle minutes", "<= 0.4", func(r result) string {
		return fmt.Sprintf("%.2f", r.cpu.Seconds()*(5*time.Minute).Seconds()/r.window.Seconds())
	})
	row("start to all StorageClasses", "-", func(r result) string { return r.startup.Round(100 * time.Millisecond).String() })
	fmt.Printf("\nbinary size: %.1f MB\n", float64(binarySize)/1e6)
	for _, r := range results {
		var keys []string
		for k := range r.kube.byRequest {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return r.kube.byRequest[keys[i]] > r.kube.byRequest[keys[j]] })
		fmt.Printf("\nkube-apiserver requests in the idle window with %d share types, by verb and resource:\n", r.shareTypes)
		for _, k := range keys {
			fmt.Printf("  %-40s %d\n", k, r.kube.byRequest[k])
		}
	}
}
