package framework

import (
	"context"
	"testing"
	"time"
)

// standIn runs act every interval until the test ends, as a stand-in for a cluster component that
// keeps acting on the world; what fails is logged as the component's own trouble (the next round
// tries again), named by who.
func standIn(t testing.TB, who string, interval time.Duration, act func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if err := act(ctx); err != nil && ctx.Err() == nil {
				t.Logf("standing in for %s: %v", who, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
