// Package queuemetrics keeps client-go's work queues without metrics, so an idle operator sleeps.
//
// A named work queue with a metrics provider runs a goroutine that wakes every 500 ms to refresh its
// unfinished-work gauge. With the operator's two dozen queues that was 45 wake-ups a second, the
// largest part of its CPU at rest. The prometheus provider is installed by an init function in
// k8s.io/component-base that library-go's controllercmd imports, and SetProvider only honours its
// first call. Go initialises, among the packages whose imports are ready, the one whose path sorts
// first: this package (github.com/...) is ready as soon as client-go's workqueue is, and always before
// k8s.io/component-base's, so importing it from main claims that call for client-go's own no-op
// provider. The no-op provider is the only one client-go runs a queue without the goroutine for; it
// is unexported, hence the linkname to read the default before anyone replaces it.
package queuemetrics

import (
	_ "unsafe" // for go:linkname

	"k8s.io/client-go/util/workqueue"
)

//go:linkname clientGoDefault k8s.io/client-go/util/workqueue.globalMetricsProvider
var clientGoDefault workqueue.MetricsProvider

func init() {
	workqueue.SetProvider(clientGoDefault)
}
