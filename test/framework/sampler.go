package framework

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Changes samples a state every interval until the test ends and keeps each change, in order: a
// record of what an observer polling as often (ClusterOperator storage's readers, say) would have
// seen, for asserting that something never happened after something else.
type Changes struct {
	mu    sync.Mutex
	lines []string
	times []time.Time
}

// SampleChanges starts sampling; sample's errors are skipped (the next sample counts).
func SampleChanges(t testing.TB, interval time.Duration, sample func(context.Context) (string, error)) *Changes {
	t.Helper()
	c := &Changes{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			if now, err := sample(ctx); err == nil {
				c.mu.Lock()
				if len(c.lines) == 0 || c.lines[len(c.lines)-1] != now {
					c.lines = append(c.lines, now)
					c.times = append(c.times, time.Now())
				}
				c.mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return c
}

// Lines are the changes so far.
func (c *Changes) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lines)
}

// Timeline is the changes so far, each after the time it was first seen.
func (c *Changes) Timeline() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.lines))
	for i, l := range c.lines {
		out[i] = c.times[i].Format("15:04:05.0") + " " + l
	}
	return out
}

// After returns the changes, from the first for which first is true on, for which bad is true.
func (c *Changes) After(first, bad func(string) bool) []string {
	var out []string
	seen := false
	for _, l := range c.Lines() {
		seen = seen || first(l)
		if seen && bad(l) {
			out = append(out, l)
		}
	}
	return out
}
