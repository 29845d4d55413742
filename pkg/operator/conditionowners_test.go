package operator

import (
	"os"
	"regexp"
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

// Every condition type docs/conditions.md documents is among the operator's own: a type missing from
// ownConditions would be left behind by a hand-back and taken for a predecessor's by nobody.
func TestDocumentedConditionsAreOwn(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conditions.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([A-Za-z]+)` \\|").FindAllSubmatch(doc, -1)
	if len(rows) < 10 {
		t.Fatalf("found %d condition rows in docs/conditions.md; the table's format changed", len(rows))
	}
	for _, row := range rows {
		if typ := string(row[1]); !ownConditions.Has(typ) {
			t.Errorf("docs/conditions.md documents %s, which is not among ownConditions", typ)
		}
	}
}

// Each condition type has one writer: two writers of a type would overwrite each other's verdicts,
// and a hand-back could not tell whose it removes.
func TestWritersAreDisjoint(t *testing.T) {
	seen := map[string]int{}
	for i, w := range writers {
		for _, typ := range w.Types() {
			if j, dup := seen[typ]; dup {
				t.Errorf("%s is declared by writers %d and %d", typ, j, i)
			}
			seen[typ] = i
		}
	}
	if len(seen) != len(ownConditions.Types()) || len(seen) < 40 {
		t.Errorf("%d types declared, %d own", len(seen), len(ownConditions.Types()))
	}
}
