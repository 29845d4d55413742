package framework

import (
	"testing"
	"time"
)

func TestSettledSince(t *testing.T) {
	clean := func(l string) bool { return l == "none" }
	for _, tc := range []struct {
		name  string
		lines []string
		want  int // index of the change settled from; -1: not settled
	}{
		{name: "nothing recorded", want: -1},
		{name: "clean from the start", lines: []string{"none"}, want: 0},
		{name: "clean after", lines: []string{"a", "b", "none"}, want: 2},
		{name: "back again", lines: []string{"a", "none", "a"}, want: -1},
		{name: "clean, back, clean", lines: []string{"none", "a", "none"}, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Changes{}
			base := time.Now()
			for i, l := range tc.lines {
				c.record(l, "")
				c.times[i] = base.Add(time.Duration(i) * time.Second) // distinct, to tell the changes apart
			}
			at, ok := c.SettledSince(clean)
			if tc.want < 0 {
				if ok {
					t.Fatalf("settled at %v, want not settled", at)
				}
				return
			}
			if !ok || !at.Equal(c.times[tc.want]) {
				t.Fatalf("settled %v at %v, want change %d at %v", ok, at, tc.want, c.times[tc.want])
			}
		})
	}
}
