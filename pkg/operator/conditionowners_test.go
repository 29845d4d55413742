package operator

import (
	"slices"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/predecessor"
)

// The predecessors' tables name as shared exactly the types this operator's controllers write too: a
// shared type missed would be removed from under the predecessor at a hand-back, a type wrongly
// called shared would be left behind by a takeover.
func TestPredecessorSharedTypesAreOurs(t *testing.T) {
	for _, g := range predecessor.All {
		var ours []string
		for _, typ := range g.Types {
			if ownConditions.Has(typ) {
				ours = append(ours, typ)
			}
		}
		shared := slices.Clone(g.Shared)
		slices.Sort(shared)
		slices.Sort(ours)
		if !slices.Equal(shared, ours) {
			t.Errorf("%s: shared %v, but this operator writes %v of its types", g.Name, shared, ours)
		}
	}
}
