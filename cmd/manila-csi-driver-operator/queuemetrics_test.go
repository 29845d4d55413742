package main

import (
	"runtime"
	"strings"
	"testing"

	"k8s.io/client-go/util/workqueue"
)

// The binary links component-base's prometheus workqueue provider (through library-go's controllercmd);
// a named queue must still start no goroutine that wakes every 500 ms to update its metrics.
func TestNamedQueuesRunNoMetricsLoop(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "queuemetrics-test"})
	defer q.ShutDown()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if strings.Contains(stacks, "updateUnfinishedWorkLoop") {
		t.Fatal("a named work queue runs client-go's metrics loop: the no-op provider was not installed first")
	}
	if !strings.Contains(stacks, "waitingLoop") {
		t.Fatal("the goroutine dump holds no queue goroutine at all; the check above proves nothing")
	}
}
