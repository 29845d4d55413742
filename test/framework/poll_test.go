package framework

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestNextPollInterval(t *testing.T) {
	d, elapsed, looks := pollFirst, time.Duration(0), 1
	for d < pollCap {
		elapsed += d
		looks++
		d = nextPollInterval(d)
	}
	if d != pollCap {
		t.Fatalf("the interval ends at %s, want %s", d, pollCap)
	}
	// Quick at first: a state that settles within a few seconds is seen within a fraction of it.
	if elapsed > 6*time.Second || looks < 10 {
		t.Errorf("the cap is reached after %s and %d looks; want quick looks for the first seconds", elapsed, looks)
	}
	if got := nextPollInterval(pollCap); got != pollCap {
		t.Errorf("after the cap: %s, want %s", got, pollCap)
	}
}

func TestPoll(t *testing.T) {
	calls := 0
	if err := poll(time.Minute, func(context.Context) (bool, error) { calls++; return calls == 3, nil }); err != nil || calls != 3 {
		t.Errorf("done on the third look: err %v after %d calls", err, calls)
	}
	boom := errors.New("boom")
	if err := poll(time.Minute, func(context.Context) (bool, error) { return false, boom }); !errors.Is(err, boom) {
		t.Errorf("a check's error: got %v", err)
	}
	if err := poll(300*time.Millisecond, func(context.Context) (bool, error) { return false, nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("never done: got %v, want the deadline", err)
	}
}
