package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// bigCluster is what a big cluster holds that is not the operator's: claims, ConfigMaps and Secrets
// spread over namespaces the operator does not manage (BENCH_SCALE, e.g.
// "claims=10000,configmaps=5000,secrets=5000,namespaces=100").
type bigCluster struct {
	claims, configMaps, secrets, namespaces int
}

func (b bigCluster) String() string {
	return fmt.Sprintf("%d claims, %d ConfigMaps and %d Secrets in %d other namespaces", b.claims, b.configMaps, b.secrets, b.namespaces)
}

func bigClusterSpec(t *testing.T) bigCluster {
	b := bigCluster{claims: 10000, configMaps: 5000, secrets: 5000, namespaces: 100}
	v := os.Getenv("BENCH_SCALE")
	if v == "" {
		return b
	}
	fields := map[string]*int{"claims": &b.claims, "configmaps": &b.configMaps, "secrets": &b.secrets, "namespaces": &b.namespaces}
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(strings.TrimSpace(kv), "=")
		n, err := strconv.Atoi(val)
		if f, ok := fields[k]; ok && err == nil && n >= 0 {
			*f = n
			continue
		}
		t.Fatalf("BENCH_SCALE: %q is not one of claims=N, configmaps=N, secrets=N, namespaces=N", kv)
	}
	if b.namespaces < 1 {
		t.Fatalf("BENCH_SCALE: namespaces must be at least 1")
	}
	return b
}

// scaleRun is one binary measured on an empty cluster and then on a big one, in a world of its own.
type scaleRun struct {
	name       string
	empty, big result
}

// measureScale measures the subject mk makes (in the world it is given) with types share types, first
// on the world as it starts, then after seeding spec into it; before each start the driver's classes
// and the operand are deleted, so that both starts do the same work.
func measureScale(ctx context.Context, t *testing.T, name string, mk func(*testing.T, *framework.World) subject, spec bigCluster, types int, idle, poll time.Duration) scaleRun {
	world, err := framework.StartWorldWith(ctx, framework.OpenStackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(world.Stop)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	createTypes(ctx, t, world, 0, types)
	s := mk(t, world)
	run := scaleRun{name: name}
	emptyStart := medianStart(ctx, t, world, s, types)
	resetDriver(ctx, t, world)
	run.empty = measure(t, world, s, types, idle, poll, "")
	run.empty.startup = emptyStart
	seedBigCluster(ctx, t, world, spec)
	bigStart := medianStart(ctx, t, world, s, types)
	resetDriver(ctx, t, world)
	run.big = measure(t, world, s, types, idle, poll, "")
	run.big.startup = bigStart
	return run
}

// startRuns is how many starts medianStart times (BENCH_STARTS, default 5): one start's time to the
// classes moves by a few tenths of a second with the first poll's and the lease's timing.
func startRuns(t *testing.T) int {
	if v := os.Getenv("BENCH_STARTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("BENCH_STARTS: %q is not a count", v)
		}
		return n
	}
	return 5
}

// medianStart starts the subject startRuns times, each after the driver's classes and operand are
// deleted, and returns the median time from the start to all types' classes.
func medianStart(ctx context.Context, t *testing.T, world *framework.World, s subject, types int) time.Duration {
	var times []time.Duration
	for i := range startRuns(t) {
		resetDriver(ctx, t, world)
		op, stop := startBinary(t, world, s, fmt.Sprintf("start-%d", i))
		times = append(times, waitForClasses(t, world, types, op.started))
		stop()
	}
	slices.Sort(times)
	return times[len(times)/2]
}

// resetDriver deletes the driver's StorageClasses (the operator's or the predecessor's) and the operand.
func resetDriver(ctx context.Context, t *testing.T, world *framework.World) {
	list, err := world.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range list.Items {
		if sc.Provisioner == names.CSIDriverName {
			if err := world.Kube.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	world.ResetOperand(t)
}

// seedBigCluster creates spec's namespaces and objects: Pending claims of a class no one provisions,
// ConfigMaps and Secrets of 2 KiB of data each (a typical application's config and credentials).
func seedBigCluster(ctx context.Context, t *testing.T, world *framework.World, spec bigCluster) {
	started := time.Now()
	cfg := rest.CopyConfig(world.Config)
	cfg.QPS, cfg.Burst = 500, 1000
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := func(i int) string { return fmt.Sprintf("bench-app-%03d", i%spec.namespaces) }
	for i := 0; i < spec.namespaces; i++ {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns(i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	payload := strings.Repeat("x", 2048)
	class := "app-block"
	jobs := make(chan func() error)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				if err := job(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < spec.claims; i++ {
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("data-%05d", i), Namespace: ns(i),
			Labels: map[string]string{"app": "bench"}},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &class, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")}}}}
		jobs <- func() error {
			_, err := kube.CoreV1().PersistentVolumeClaims(claim.Namespace).Create(ctx, claim, metav1.CreateOptions{})
			return err
		}
	}
	for i := 0; i < spec.configMaps; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("config-%05d", i), Namespace: ns(i)}, Data: map[string]string{"app.conf": payload}}
		jobs <- func() error {
			_, err := kube.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
			return err
		}
	}
	for i := 0; i < spec.secrets; i++ {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("secret-%05d", i), Namespace: ns(i)}, Data: map[string][]byte{"token": []byte(payload)}}
		jobs <- func() error {
			_, err := kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{})
			return err
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("seeding the big cluster: %v", firstErr)
	}
	fmt.Printf("seeded %s in %s\n", spec, time.Since(started).Round(time.Second))
}

// printScaleTable prints each binary's figures on the empty and on the big cluster, with big / empty.
func printScaleTable(runs []scaleRun, spec bigCluster, types int, idle time.Duration) {
	mb := func(kib int) float64 { return float64(kib) * 1024 / 1e6 }
	perMin := func(r result) float64 { return float64(r.kube.total) / r.window.Minutes() }
	fmt.Printf("\nScale of the cluster, not of Manila: %d share types, idle window %s; the big cluster holds %s.\n\n", types, idle, spec)
	fmt.Println("| figure | binary | empty cluster | big cluster | big / empty | goal |")
	fmt.Println("|---|---|---|---|---|---|")
	rows := []struct {
		figure, goal string
		value        func(r result) float64
		format       string
	}{
		{"start to all StorageClasses (median of BENCH_STARTS starts)", "empty < 500 ms, big within 10% (ours)", func(r result) float64 { return float64(r.startup.Milliseconds()) }, "%.0f ms"},
		{"VmRSS at the end", "within 10% (ours)", func(r result) float64 { return mb(r.rssKiB) }, "%.1f MB"},
		{"of which anonymous (RssAnon)", "-", func(r result) float64 { return mb(r.anonKiB) }, "%.1f MB"},
		{"working set at the end", "within 10% (ours)", func(r result) float64 { return mb(r.memory.workingSetKiB) }, "%.1f MB"},
		{"kube-apiserver requests per idle minute", "-", perMin, "%.1f"},
	}
	for _, row := range rows {
		for _, run := range runs {
			e, b := row.value(run.empty), row.value(run.big)
			fmt.Printf("| %s | %s | "+row.format+" | "+row.format+" | %.2f | %s |\n", row.figure, run.name, e, b, b/e, row.goal)
		}
	}
}
