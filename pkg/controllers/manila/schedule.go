package manila

import (
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
	return s.retryDelay(consecutiveFailures)
}

func (s Schedule) retryDelay(failures int) time.Duration {
	delay := s.RetryBase
	for i := 1; i < failures && delay < s.Interval; i++ {
		delay *= 2
	}
	if delay > s.Interval || delay <= 0 {
		delay = s.Interval
	}
	return delay
}
