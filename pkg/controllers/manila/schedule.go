package manila

import (
	"math"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Schedule decides when the next poll of OpenStack happens.
type Schedule struct {
	// Interval between successful polls.
	Interval time.Duration
	// Jitter spreads polls of many clusters: each wait is Interval * (1 + [0, Jitter)).
	Jitter float64
	// RetryBase is the first retry delay after a failure; it doubles per consecutive failure up to Interval.
	RetryBase time.Duration
}

// DefaultSchedule polls once a minute, 10% jitter, and retries a failure after 5 s, 10 s, 20 s, ...
func DefaultSchedule() Schedule {
	return Schedule{Interval: time.Minute, Jitter: 0.1, RetryBase: 5 * time.Second}
}

// Next returns the wait before the next poll, given how many polls in a row have failed.
func (s Schedule) Next(consecutiveFailures int) time.Duration {
	if consecutiveFailures <= 0 {
		return wait.Jitter(s.Interval, s.Jitter)
	}
	// The schedule is worked out from the count, not kept as a stepped Backoff, so that a poll interval
	// changed between two failures caps the very next retry.
	next := s.retries().DelayFunc()
	delay := next()
	for i := 1; i < consecutiveFailures && delay < s.Interval; i++ {
		delay = next()
	}
	return delay // once at the cap every further delay is the cap: the loop may stop early
}

// retries is the backoff after failures: RetryBase doubling per failure, capped at the interval.
func (s Schedule) retries() wait.Backoff {
	first := min(s.RetryBase, s.Interval)
	if first <= 0 {
		first = s.Interval
	}
	return wait.Backoff{Duration: first, Factor: 2, Steps: math.MaxInt, Cap: s.Interval}
}
