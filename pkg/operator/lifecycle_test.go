package operator

import (
	"errors"
	"testing"
)

func TestLifeTransitions(t *testing.T) {
	bad := errors.New("bad settings")
	for _, tc := range []struct {
		from    phase
		on      event
		to      phase
		exitErr error // when to is done
		invalid bool
	}{
		{from: connecting, on: evReady, to: awaiting},
		{from: connecting, on: evStopping, to: done},
		{from: connecting, on: evLeaseLost, to: done, exitErr: errLostLease},
		{from: connecting, on: evFailed, to: done, exitErr: bad},
		{from: awaiting, on: evReady, to: leading},
		{from: awaiting, on: evStopping, to: done},
		{from: awaiting, on: evLeaseLost, to: done, exitErr: errLostLease},
		{from: leading, on: evPredecessorLeads, to: yielding},
		{from: leading, on: evStopping, to: handingOver},
		{from: leading, on: evLeaseLost, to: done, exitErr: errLostLease},
		{from: leading, on: evFailed, to: done, exitErr: bad},
		{from: yielding, on: evPredecessorLetGo, to: done, exitErr: errPredecessorLetGo},
		{from: yielding, on: evStopping, to: handingOver},
		{from: yielding, on: evLeaseLost, to: done, exitErr: errLostLease},
		{from: handingOver, on: evReady, to: done},
		// A predecessor is only looked for while leading; a phase that cannot end so has no such edge.
		{from: awaiting, on: evPredecessorLeads, invalid: true},
		{from: handingOver, on: evStopping, invalid: true},
		{from: done, on: evReady, invalid: true},
	} {
		t.Run(tc.from.String()+" on "+tc.on.String(), func(t *testing.T) {
			got, err := next(tc.from, tc.on)
			if tc.invalid {
				if err == nil {
					t.Fatalf("next = %s, want no transition", got)
				}
				return
			}
			if err != nil || got != tc.to {
				t.Fatalf("next = %s, %v; want %s", got, err, tc.to)
			}
			if got == done {
				if exit := exitError(tc.on, bad); !errors.Is(exit, tc.exitErr) {
					t.Errorf("exit error %v, want %v", exit, tc.exitErr)
				}
			}
		})
	}
}

// Every phase reaches done, whatever happens: the life has one exit and no dead end.
func TestLifeAlwaysEnds(t *testing.T) {
	reachesDone := map[phase]bool{done: true}
	for changed := true; changed; {
		changed = false
		for from, edges := range lifeTransitions {
			for _, to := range edges {
				if reachesDone[to] && !reachesDone[from] {
					reachesDone[from], changed = true, true
				}
			}
		}
	}
	for p := connecting; p < done; p++ {
		if !reachesDone[p] {
			t.Errorf("phase %s never reaches done", p)
		}
		// Asked to stop, every phase ends or hands over: nothing waits for anything else.
		n, err := next(p, evStopping)
		if p == handingOver {
			n, err = next(p, evReady)
		}
		if err != nil || (n != done && n != handingOver) {
			t.Errorf("phase %s on stop goes to %s (%v), want done or handing over", p, n, err)
		}
	}
}
