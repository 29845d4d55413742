package leasegate

import (
	"testing"
	"time"
)

func TestReleased(t *testing.T) {
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		holder   string
		renewed  time.Time
		released bool
	}{
		{"a live leader's lease is kept", "pod-a", now.Add(-10 * time.Second), false},
		{"a killed leader's lease, past its duration, is released", "pod-a", now.Add(-138 * time.Second), true},
		{"a lease released already is left", "", now.Add(-time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := lease(tc.name, tc.holder, tc.renewed, 137)
			l.Spec.LeaseTransitions = new(int32)
			*l.Spec.LeaseTransitions = 4
			got, ok := Released(l, now)
			if ok != tc.released {
				t.Fatalf("released = %v, want %v", ok, tc.released)
			}
			if !ok {
				return
			}
			s := got.Spec
			if *s.HolderIdentity != "" || *s.LeaseDurationSeconds != 1 || !s.RenewTime.Time.Equal(now) || !s.AcquireTime.Time.Equal(now) {
				t.Errorf("released as %+v, want no holder, 1 s, acquired and renewed now", s)
			}
			if *s.LeaseTransitions != 4 || got.ResourceVersion != l.ResourceVersion || got.Name != l.Name {
				t.Errorf("released lease lost its transitions, name or resourceVersion: %+v", got)
			}
			if *l.Spec.HolderIdentity != tc.holder {
				t.Errorf("the lease read was changed")
			}
		})
	}
}
