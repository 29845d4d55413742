package main

import (
	"runtime"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// The binary links component-base's prometheus workqueue provider (through library-go's controllercmd);
// a named queue must still start no goroutine that wakes every 500 ms to update its metrics. A named
// rate-limited queue starts its delaying loop, plus the metrics loop when a provider is installed; the
// count is taken at creation, so it does not depend on when the goroutines first run.
func TestNamedQueuesRunNoMetricsLoop(t *testing.T) {
	before := runtime.NumGoroutine()
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "queuemetrics-test"})
	started := runtime.NumGoroutine() - before
	q.ShutDown()
	if started != 1 {
		t.Fatalf("a named work queue started %d goroutines, want 1 (its delaying loop): client-go's metrics loop runs, the no-op provider was not installed first", started)
	}
}
