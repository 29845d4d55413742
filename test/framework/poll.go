package framework

import (
	"context"
	"time"
)

// The waits poll quickly at first, for what settles in a moment, then back off to pollCap: most of a
// long wait is spent on a share service or a rollout, and every look costs the server answering it
// (a Manila GET is tens of ms of Python) on the same two cores as the test it waits for.
const (
	pollFirst  = 100 * time.Millisecond
	pollCap    = time.Second
	pollGrowth = 1.25
)

// nextPollInterval is the interval after d: grown by pollGrowth, at most pollCap.
func nextPollInterval(d time.Duration) time.Duration {
	return min(time.Duration(float64(d)*pollGrowth), pollCap)
}

// poll calls check at once and then at growing intervals (nextPollInterval) until it returns true or
// an error, or timeout passes (context.DeadlineExceeded). check gets a context that ends with the
// timeout.
func poll(timeout time.Duration, check func(ctx context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for interval := pollFirst; ; interval = nextPollInterval(interval) {
		if done, err := check(ctx); err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
