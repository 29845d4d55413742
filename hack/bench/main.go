// Command bench measures the operator against the real test world and prints a table:
// share-type-to-StorageClass latency for 1, 100 and 1,000 new types, Keystone and kube-apiserver
// requests per hour at steady state with 100 types, CPU per no-op poll, and RSS with 1,000 types.
// The operator runs in this process (its OpenStack and kube clients counted by wrapping transports);
// Keystone's own access log is counted too.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/storageclass"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

const pollInterval = 5 * time.Second

type row struct{ metric, value, note string }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// testing.Main hands the framework's helpers a real *testing.T, so a failed wait fails the run.
	testing.Main(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: "bench", F: func(t *testing.T) { bench(ctx, t) }}}, nil, nil)
}

func bench(ctx context.Context, t *testing.T) {
	world, err := framework.StartWorld(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(world.Stop)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	opts, counter := framework.OperatorOptions()
	opts.PollInterval = pollInterval
	op := world.RunOperatorWith(t, opts, counter)
	// Start from a settled operator that already polled once (Manila without share types), so the
	// first latency is measured from a random point of the poll cycle.
	world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)

	var rows []row
	total := 0
	for _, n := range []int{1, 100, 1000} {
		latency := addTypes(ctx, t, world, total, n)
		total += n
		rows = append(rows, row{fmt.Sprintf("new share types -> StorageClasses, %d type(s)", n), latency.Round(10 * time.Millisecond).String(),
			fmt.Sprintf("from the last create in Manila to all classes present; poll interval %s", pollInterval)})
		if total == 101 {
			rows = append(rows, steadyState(t, world, op)...)
		}
	}
	runtime.GC()
	rows = append(rows, row{"operator process RSS with 1,000 share types", fmt.Sprintf("%d MiB", rssKiB()/1024),
		"VmRSS of this process: the operator in-process plus the bench's own clients"})
	printTable(rows)
}

func addTypes(ctx context.Context, t *testing.T, world *framework.World, offset, n int) time.Duration {
	specs := make([]framework.ShareTypeSpec, n)
	for i := range specs {
		specs[i] = framework.ShareTypeSpec{Name: fmt.Sprintf("bench-%04d", offset+i)}
	}
	if _, err := world.OpenStack.CreateShareTypes(ctx, specs); err != nil {
		t.Fatal(err)
	}
	created := time.Now()
	want := offset + n
	framework.Eventually(t, 10*time.Minute, fmt.Sprintf("%d StorageClasses", want), func(ctx context.Context) error {
		list, err := world.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{
			LabelSelector: storageclass.OwnerLabel + "=" + storageclass.OwnerLabelValue})
		if err != nil {
			return err
		}
		if len(list.Items) < want {
			return fmt.Errorf("%d of %d", len(list.Items), want)
		}
		return nil
	})
	return time.Since(created)
}

// steadyState watches a window of no-op polls with 101 share types and scales the counts to an hour
// at the default 60 s poll interval.
func steadyState(t *testing.T, world *framework.World, op *framework.RunningOperator) []row {
	const polls = 12
	manilaLists := func() int {
		n := 0
		for _, r := range op.Requests.Log() {
			if strings.HasSuffix(r, "/v2/types") {
				n++
			}
		}
		return n
	}
	settled := manilaLists()
	framework.Eventually(t, time.Minute, "a whole poll after convergence", func(context.Context) error {
		if manilaLists() <= settled {
			return fmt.Errorf("waiting")
		}
		return nil
	})
	startLists, startKube := manilaLists(), len(op.KubeRequests.Log())
	startKubeWrites := len(op.KubeRequests.Writes())
	startKeystone := world.OpenStackKeystoneRequests(op)
	startKeystoneLog := keystoneLogins(world)
	startCPU, startTime := cpuTime(), time.Now()
	framework.Eventually(t, time.Duration(polls+4)*pollInterval, fmt.Sprintf("%d polls", polls), func(context.Context) error {
		if manilaLists()-startLists < polls {
			return fmt.Errorf("%d polls so far", manilaLists()-startLists)
		}
		return nil
	})
	n := manilaLists() - startLists
	window := time.Since(startTime)
	// What remains at steady state is time-driven (library-go resyncs), not poll-driven, so scale by time.
	perHour := func(count int) string {
		return fmt.Sprintf("%.0f", float64(count)/window.Hours())
	}
	kubeLog := op.KubeRequests.Log()[startKube:]
	kube := len(kubeLog)
	byPath := map[string]int{}
	for _, r := range kubeLog {
		byPath[strings.Join(strings.Fields(r)[:1], "")+" "+resourceOf(r)]++
	}
	return []row{
		{"Keystone requests per hour, steady state, 100 types", perHour(world.OpenStackKeystoneRequests(op) - startKeystone),
			fmt.Sprintf("%d in %d polls over %s (client count); Keystone's log: %d token requests", world.OpenStackKeystoneRequests(op)-startKeystone, n, window.Round(time.Second), keystoneLogins(world)-startKeystoneLog)},
		{"Manila requests per poll", fmt.Sprintf("%.1f", float64(manilaLists()-startLists)/float64(n)), "GET /v2/types?is_public=all"},
		{"kube-apiserver requests per hour, steady state, 100 types", perHour(kube),
			fmt.Sprintf("%d in %d polls over %s, %d of them writes; by resource: %v (none from the polls: library-go's static-resource resyncs)", kube, n, window.Round(time.Second), len(op.KubeRequests.Writes())-startKubeWrites, byPath)},
		{"CPU time per no-op poll", ((cpuTime() - startCPU) / time.Duration(n)).Round(100 * time.Microsecond).String(),
			"process user+system CPU over the window divided by polls; includes all idle controllers"},
	}
}

// resourceOf reduces "GET host/apis/group/v1/namespaces/ns/kind/name" to "kind".
func resourceOf(request string) string {
	parts := strings.Split(strings.Fields(request)[1], "/")
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			return parts[i+2]
		}
	}
	if len(parts) > 0 {
		return parts[len(parts)-1]
	}
	return request
}

func keystoneLogins(world *framework.World) int {
	return strings.Count(world.OpenStack.Log("keystone-uwsgi"), "POST /v3/auth/tokens")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func rssKiB() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			var kib int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:")), "%d", &kib)
			return kib
		}
	}
	return 0
}

func printTable(rows []row) {
	fmt.Println()
	fmt.Println("| metric | value | how |")
	fmt.Println("|---|---|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s |\n", r.metric, r.value, r.note)
	}
}
