// Package metrics defines the operator's own Prometheus metrics, registered in component-base's
// legacy registry, which library-go's controllercmd serves at /metrics on its --listen address.
// Every label has a bounded set of values: no share-type or class names, no IDs, no URLs.
package metrics

import (
	"time"

	k8smetrics "k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"
)

// Namespace prefixes every metric name.
const Namespace = "manila_csi_driver_operator"

// Poll results, the values of the result label.
const (
	PollSuccess = "success"
	PollFailure = "failure"
)

// StorageClass states, the values of the state label.
const (
	StateOwned   = "owned"
	StateStale   = "stale"
	StateSkipped = "skipped"
	StateForeign = "foreign"
)

var (
	shareTypes = k8smetrics.NewGauge(&k8smetrics.GaugeOpts{
		Namespace: Namespace, Name: "share_types",
		Help:           "Share types in the latest successful Manila listing.",
		StabilityLevel: k8smetrics.ALPHA,
	})
	storageClasses = k8smetrics.NewGaugeVec(&k8smetrics.GaugeOpts{
		Namespace: Namespace, Name: "storage_classes",
		Help:           "StorageClasses by state: owned (the operator's, serving a listed share type), stale (the operator's, share type gone), skipped (share types without a class, by reason), foreign (a class with the operator's name it does not own, blocking a share type).",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"state", "reason"})
	openStackRequests = k8smetrics.NewCounterVec(&k8smetrics.CounterOpts{
		Namespace: Namespace, Name: "openstack_requests_total",
		Help:           "HTTP requests to OpenStack by service (identity, sharev2), operation (method and templated path) and status code (\"error\" when no response came).",
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"service", "operation", "code"})
	openStackLatency = k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Namespace: Namespace, Name: "openstack_request_duration_seconds",
		Help:           "Latency of HTTP requests to OpenStack (to the response headers) by service and operation.",
		Buckets:        []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"service", "operation"})
	pollDuration = k8smetrics.NewHistogramVec(&k8smetrics.HistogramOpts{
		Namespace: Namespace, Name: "poll_duration_seconds",
		Help:           "Duration of polls of Keystone and Manila by result (success: OpenStack answered whether Manila is there and its share types; failure: anything else).",
		Buckets:        []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		StabilityLevel: k8smetrics.ALPHA,
	}, []string{"result"})
	lastSuccessfulPoll = k8smetrics.NewGauge(&k8smetrics.GaugeOpts{
		Namespace: Namespace, Name: "last_successful_poll_timestamp_seconds",
		Help:           "Unix time of the last successful poll of Keystone and Manila (0: none yet).",
		StabilityLevel: k8smetrics.ALPHA,
	})
	configValid = k8smetrics.NewGauge(&k8smetrics.GaugeOpts{
		Namespace: Namespace, Name: "config_valid",
		Help:           "1 when ConfigMap manila-csi-driver-operator-settings is valid (or absent), 0 while it is invalid and the last valid configuration is in force.",
		StabilityLevel: k8smetrics.ALPHA,
	})
)

func init() {
	// Registered at once: component-base's metrics record nothing until they are registered.
	legacyregistry.MustRegister(shareTypes, storageClasses, openStackRequests, openStackLatency, pollDuration,
		lastSuccessfulPoll, configValid)
	// Until the config check has run, the absent ConfigMap is the default: valid.
	configValid.Set(1)
}

// ObservePoll records a poll of OpenStack: its duration and result and, when it succeeded, when it
// ended and how many share types Manila listed.
func ObservePoll(duration time.Duration, succeeded bool, end time.Time, types int) {
	if !succeeded {
		pollDuration.WithLabelValues(PollFailure).Observe(duration.Seconds())
		return
	}
	pollDuration.WithLabelValues(PollSuccess).Observe(duration.Seconds())
	// The count first: a reader that sees the new poll time finds that poll's count.
	shareTypes.Set(float64(types))
	lastSuccessfulPoll.Set(float64(end.UnixNano()) / 1e9)
}

// SetConfigValid records the verdict of the operator config check.
func SetConfigValid(valid bool) {
	configValid.Set(boolValue(valid))
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
