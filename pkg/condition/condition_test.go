package condition

import (
	"context"
	"slices"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// memClient keeps one status; its cache can lag the server by a version, and an update conflicts
// unless it names the server's version.
type memClient struct {
	server, cache   operatorv1.OperatorStatus
	version, cached string
	writes, quorum  int
	missing         bool
}

func (m *memClient) GetOperatorState() (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	if m.missing {
		return nil, nil, "", apierrors.NewNotFound(schema.GroupResource{Resource: "clustercsidrivers"}, "x")
	}
	return &operatorv1.OperatorSpec{}, m.cache.DeepCopy(), m.cached, nil
}

func (m *memClient) GetOperatorStateWithQuorum(context.Context) (*operatorv1.OperatorSpec, *operatorv1.OperatorStatus, string, error) {
	m.quorum++
	return &operatorv1.OperatorSpec{}, m.server.DeepCopy(), m.version, nil
}

func (m *memClient) UpdateOperatorStatus(_ context.Context, version string, s *operatorv1.OperatorStatus) (*operatorv1.OperatorStatus, error) {
	if version != m.version {
		return nil, apierrors.NewConflict(schema.GroupResource{Resource: "clustercsidrivers"}, "x", nil)
	}
	m.writes++
	m.server, m.version = *s.DeepCopy(), version+"'"
	m.cache, m.cached = m.server, m.version
	return s, nil
}

func status(types ...string) operatorv1.OperatorStatus {
	var s operatorv1.OperatorStatus
	for _, t := range types {
		s.Conditions = append(s.Conditions, operatorv1.OperatorCondition{Type: t, Status: operatorv1.ConditionFalse, Reason: "AsExpected"})
	}
	return s
}

func types(s operatorv1.OperatorStatus) []string {
	var out []string
	for _, c := range s.Conditions {
		out = append(out, c.Type)
	}
	return out
}

func TestUpdate(t *testing.T) {
	aDegraded := operatorv1.OperatorCondition{Type: "ADegraded", Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	for _, tc := range []struct {
		name        string
		server      operatorv1.OperatorStatus
		staleCache  bool
		changes     []Change
		wantWritten bool
		wantTypes   []string
		wantQuorum  bool
	}{
		{"a new condition is written", status("B"), false, []Change{Set(aDegraded)}, true, []string{"B", "ADegraded"}, false},
		{"the same condition again writes nothing", status("ADegraded"), false, []Change{Set(aDegraded)}, false, []string{"ADegraded"}, false},
		{"removal", status("A", "B", "C"), false, []Change{Remove("A", "C")}, true, []string{"B"}, false},
		{"removal of what is not there writes nothing", status("B"), false, []Change{Remove("A")}, false, []string{"B"}, false},
		{"a stale cache: the conflict is retried on the server's status", status("A", "B"), true, []Change{Remove("B")}, true, []string{"A"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memClient{server: tc.server, version: "1", cache: tc.server, cached: "1"}
			if tc.staleCache {
				m.cache, m.cached = status("A", "B", "C"), "0"
			}
			written, err := Update(context.Background(), m, tc.changes...)
			if err != nil {
				t.Fatal(err)
			}
			if written != tc.wantWritten || (m.writes > 0) != tc.wantWritten {
				t.Errorf("written %v after %d writes, want %v", written, m.writes, tc.wantWritten)
			}
			if got := types(m.server); !slices.Equal(got, tc.wantTypes) {
				t.Errorf("conditions %v, want %v", got, tc.wantTypes)
			}
			if (m.quorum > 0) != tc.wantQuorum {
				t.Errorf("%d reads from the server, want some: %v", m.quorum, tc.wantQuorum)
			}
		})
	}
}

func TestRemoveWhereReportsWhatWasThere(t *testing.T) {
	m := &memClient{server: status("A", "B"), version: "1", cache: status("A", "B"), cached: "1"}
	var removed []string
	pick := func(conds []operatorv1.OperatorCondition) []string { return []string{"B", "Z"} }
	if _, err := Update(context.Background(), m, RemoveWhere(pick, &removed)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{"B"}) {
		t.Errorf("removed %v, want [B]", removed)
	}
}

func TestUpdateOfAMissingObject(t *testing.T) {
	if _, err := Update(context.Background(), &memClient{missing: true}, Remove("A")); !apierrors.IsNotFound(err) {
		t.Errorf("got %v, want NotFound", err)
	}
}
