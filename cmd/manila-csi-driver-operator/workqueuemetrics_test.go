package main

import (
	"strings"
	"testing"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
)

// The binary's named work queues report workqueue_* metrics to the legacy registry, which the
// operator's metrics endpoint serves: library-go's controllercmd imports component-base's client-go
// metrics, which install the work-queue provider, and nothing replaces it.
func TestNamedQueuesReportWorkqueueMetrics(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "workqueuemetrics-test"})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")

	want := `
# HELP workqueue_depth [BETA] Current depth of workqueue
# TYPE workqueue_depth gauge
workqueue_depth{name="workqueuemetrics-test"} 2
`
	if err := testutil.GatherAndCompare(legacyregistry.DefaultGatherer, strings.NewReader(want), "workqueue_depth"); err != nil {
		t.Fatal(err)
	}
}
