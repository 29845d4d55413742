package framework

import (
	"reflect"
	"testing"
)

func TestFocusedRunProblems(t *testing.T) {
	passed := func(name string) SpecResult { return SpecResult{Name: name, State: "passed"} }
	for _, tc := range []struct {
		name  string
		specs []SpecResult
		focus []string
		want  []string
	}{
		{name: "every focus ran and passed", specs: []SpecResult{passed("provisioning should store"), passed("subPath should support")},
			focus: []string{"provisioning", "subPath"}},
		{name: "a focus that matched nothing", specs: []SpecResult{passed("provisioning should store")},
			focus: []string{"provisioning", "volume-expand"}, want: []string{`no spec matching "volume-expand" ran`}},
		{name: "a skipped spec is a problem", specs: []SpecResult{{Name: "multiVolume x", State: "skipped", Message: "needs two\nnodes"}},
			focus: []string{"multiVolume"}, want: []string{"skipped multiVolume x: needs two nodes"}},
		{name: "a failed spec is a problem", specs: []SpecResult{{Name: "volumes y", State: "failed", Message: "timed out"}},
			focus: []string{"volumes"}, want: []string{"failed volumes y: timed out"}},
		{name: "a bad focus", focus: []string{"("}, want: []string{"focus \"(\": error parsing regexp: missing closing ): `(`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FocusedRunProblems(tc.specs, tc.focus); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q; want %q", got, tc.want)
			}
		})
	}
}
