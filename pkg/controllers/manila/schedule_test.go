package manila

import (
	"testing"
	"time"
)

func TestScheduleNext(t *testing.T) {
	s := Schedule{Interval: time.Minute, Jitter: 0.1, RetryBase: 5 * time.Second}
	tests := []struct {
		failures int
		min, max time.Duration
	}{
		{0, time.Minute, 66 * time.Second},
		{1, 5 * time.Second, 5 * time.Second},
		{2, 10 * time.Second, 10 * time.Second},
		{3, 20 * time.Second, 20 * time.Second},
		{4, 40 * time.Second, 40 * time.Second},
		{5, time.Minute, time.Minute},
		{50, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		for i := 0; i < 20; i++ {
			if got := s.Next(tt.failures); got < tt.min || got > tt.max {
				t.Errorf("Next(%d) = %s, want within [%s, %s]", tt.failures, got, tt.min, tt.max)
			}
		}
	}
	short := Schedule{Interval: 3 * time.Second, RetryBase: 5 * time.Second}
	if got := short.Next(1); got != 3*time.Second {
		t.Errorf("a retry never waits longer than the interval: got %s", got)
	}
	if got := (Schedule{Interval: time.Minute}).Next(3); got != time.Minute {
		t.Errorf("without a retry base a retry waits the interval: got %s", got)
	}
}
