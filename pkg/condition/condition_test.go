package condition

import (
	"context"
	"slices"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	applyoperatorv1 "github.com/openshift/client-go/operator/applyconfigurations/operator/v1"
	"github.com/openshift/library-go/pkg/apiserver/jsonpatch"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition/conditiontest"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/conditiontypes"
)

// memClient keeps one status; its cache can lag the server by a version, and an update conflicts
// unless it names the server's version.
type memClient struct {
	server, cache   operatorv1.OperatorStatus
	version, cached string
	writes, quorum  int
	patches         int
	missing         bool
	refusePatches   bool // every patch refused as the API server refuses a failed test, nothing moved
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

// PatchOperatorStatus applies the JSON patch to the server's status as the API server does; a write
// moves the version.
func (m *memClient) PatchOperatorStatus(_ context.Context, patch *jsonpatch.PatchSet) error {
	if m.refusePatches {
		return apierrors.NewGenericServerResponse(422, "patch", schema.GroupResource{Resource: "clustercsidrivers"}, "", "testing value /status/conditions/0/type failed", 0, false)
	}
	patched, err := conditiontest.Apply(m.server, patch)
	if err != nil {
		return err
	}
	m.writes++
	m.patches++
	m.server, m.version = patched, m.version+"'"
	m.cache, m.cached = m.server, m.version
	return nil
}

// Declares every type but those named Undeclared...
func (m *memClient) Declares(t string) bool { return !strings.HasPrefix(t, "Undeclared") }

func status(types ...string) operatorv1.OperatorStatus {
	var s operatorv1.OperatorStatus
	for _, t := range types {
		s.Conditions = append(s.Conditions, operatorv1.OperatorCondition{Type: t, Status: operatorv1.ConditionFalse, Reason: "AsExpected"})
	}
	return s
}

func typesOf(s operatorv1.OperatorStatus) []string {
	var out []string
	for _, c := range s.Conditions {
		out = append(out, c.Type)
	}
	return out
}

// Update writes what its changes changed, retries a conflict on the server's copy, and adds or
// changes only the types its writer declares; it may remove any (a predecessor's stale ones), and a
// condition of another type that it leaves as it is does not stop its write.
func TestUpdate(t *testing.T) {
	aDegraded := operatorv1.OperatorCondition{Type: "ADegraded", Status: operatorv1.ConditionFalse, Reason: "AsExpected"}
	undeclared := operatorv1.OperatorCondition{Type: "UndeclaredDegraded", Status: operatorv1.ConditionTrue, Reason: "R"}
	aTrue := operatorv1.OperatorCondition{Type: "A", Status: operatorv1.ConditionTrue}
	for _, tc := range []struct {
		name        string
		server      operatorv1.OperatorStatus
		staleCache  bool
		changes     []Change
		wantWritten bool
		wantTypes   []string
		wantQuorum  bool
		wantErr     bool
	}{
		{"a new condition is written", status("B"), false, []Change{Set(aDegraded)}, true, []string{"B", "ADegraded"}, false, false},
		{"the same condition again writes nothing", status("ADegraded"), false, []Change{Set(aDegraded)}, false, []string{"ADegraded"}, false, false},
		{"removal", status("A", "B", "C"), false, []Change{Remove("A", "C")}, true, []string{"B"}, false, false},
		{"removal of what is not there writes nothing", status("B"), false, []Change{Remove("A")}, false, []string{"B"}, false, false},
		{"a stale cache: the conflict is retried on the server's status", status("A", "B"), true, []Change{Remove("B")}, true, []string{"A"}, true, false},
		{"setting an undeclared type is refused", status("A"), false, []Change{Set(undeclared)}, false, []string{"A"}, false, true},
		{"changing an undeclared type is refused", status("A", "UndeclaredDegraded"), false, []Change{Set(undeclared)}, false, []string{"A", "UndeclaredDegraded"}, false, true},
		{"removing an undeclared type is allowed", status("A", "UndeclaredDegraded"), false, []Change{Remove("UndeclaredDegraded")}, true, []string{"A"}, false, false},
		{"an undeclared type left as it is", status("UndeclaredDegraded"), false, []Change{Set(aTrue)}, true, []string{"UndeclaredDegraded", "A"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memClient{server: tc.server, version: "1", cache: tc.server, cached: "1"}
			if tc.staleCache {
				m.cache, m.cached = status("A", "B", "C"), "0"
			}
			written, err := Update(context.Background(), m, tc.changes...)
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %v", err, tc.wantErr)
			}
			if written != tc.wantWritten || (m.writes > 0) != tc.wantWritten {
				t.Errorf("written %v after %d writes, want %v", written, m.writes, tc.wantWritten)
			}
			if got := typesOf(m.server); !slices.Equal(got, tc.wantTypes) {
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

func cond(t string, s operatorv1.ConditionStatus, msg string) operatorv1.OperatorCondition {
	return operatorv1.OperatorCondition{Type: t, Status: s, Reason: "R", Message: msg}
}

// A removal is a patch that tests what the decision read (each condition's type and status at its
// place), not the version: others' writes of anything else since the read do not refuse it, and a
// decision whose grounds changed is made again on what is there now.
func TestRemovalIsAPatchOnWhatWasRead(t *testing.T) {
	theirs := func(s operatorv1.ConditionStatus, msg string) operatorv1.OperatorCondition {
		return cond("TheirsAvailable", s, msg)
	}
	ours := cond("OursAvailable", operatorv1.ConditionTrue, "")
	// Ours goes while theirs says Available.
	whileTheirsAvailable := RemoveWhere(func(conds []operatorv1.OperatorCondition) []string {
		if v1helpers.IsOperatorConditionTrue(conds, "TheirsAvailable") {
			return []string{"OursAvailable"}
		}
		return nil
	}, nil)
	for _, tc := range []struct {
		name           string
		read, server   []operatorv1.OperatorCondition
		wantTypes      []string
		wantReread     bool
		wantPatches    int
		wantNotWritten bool
	}{
		{"others wrote messages and times since the read: the patch applies",
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, "a"), ours},
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, "b"), ours},
			[]string{"TheirsAvailable"}, false, 1, false},
		{"a condition was added before it: decided again on the server's",
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, ""), ours},
			[]operatorv1.OperatorCondition{cond("NewDegraded", operatorv1.ConditionFalse, ""), theirs(operatorv1.ConditionTrue, ""), ours},
			[]string{"NewDegraded", "TheirsAvailable"}, true, 1, false},
		{"their Progressing flipped since the read (no removal is decided on it): the patch applies",
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, ""), cond("TheirsProgressing", operatorv1.ConditionTrue, ""), ours},
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, ""), cond("TheirsProgressing", operatorv1.ConditionFalse, ""), ours},
			[]string{"TheirsAvailable", "TheirsProgressing"}, false, 1, false},
		{"the grounds flipped since the read: decided again, nothing removed",
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionTrue, ""), ours},
			[]operatorv1.OperatorCondition{theirs(operatorv1.ConditionFalse, ""), ours},
			[]string{"TheirsAvailable", "OursAvailable"}, true, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &memClient{server: operatorv1.OperatorStatus{Conditions: tc.server}, version: "2",
				cache: operatorv1.OperatorStatus{Conditions: tc.read}, cached: "1"}
			written, err := Update(context.Background(), m, whileTheirsAvailable)
			if err != nil {
				t.Fatal(err)
			}
			if got := typesOf(m.server); !slices.Equal(got, tc.wantTypes) {
				t.Errorf("conditions %v, want %v", got, tc.wantTypes)
			}
			if (m.quorum > 0) != tc.wantReread || m.patches != tc.wantPatches || written == tc.wantNotWritten {
				t.Errorf("%d reads from the server, %d patches, written %v; want a read %v, %d patches", m.quorum, m.patches, written, tc.wantReread, tc.wantPatches)
			}
		})
	}
}

// A patch the server refuses on a status nobody moved since the read is not a lost race: the removal
// is written as the whole status of that version, as one write.
func TestRefusedPatchOnAnUnmovedStatusIsWrittenWhole(t *testing.T) {
	m := &memClient{server: status("A", "B"), version: "1", cache: status("A", "B"), cached: "1", refusePatches: true}
	written, err := Update(context.Background(), m, Remove("B"))
	if err != nil || !written {
		t.Fatalf("written %v, error %v; want written", written, err)
	}
	if got := typesOf(m.server); !slices.Equal(got, []string{"A"}) {
		t.Errorf("conditions %v, want [A]", got)
	}
	if m.patches != 0 || m.writes != 1 {
		t.Errorf("%d patches applied, %d writes; want the one whole write", m.patches, m.writes)
	}
}

func TestRemovalPatch(t *testing.T) {
	a, b, c := cond("AAvailable", operatorv1.ConditionTrue, ""), cond("BProgressing", operatorv1.ConditionFalse, ""), cond("CDegraded", operatorv1.ConditionTrue, "")
	bChanged := cond("BProgressing", operatorv1.ConditionTrue, "")
	for _, tc := range []struct {
		name       string
		read, kept []operatorv1.OperatorCondition
		want       string
	}{
		{"nothing removed", []operatorv1.OperatorCondition{a, b}, []operatorv1.OperatorCondition{a, b}, ""},
		{"a condition changed: not a removal", []operatorv1.OperatorCondition{a, b}, []operatorv1.OperatorCondition{a, bChanged}, ""},
		{"a condition added: not a removal", []operatorv1.OperatorCondition{a}, []operatorv1.OperatorCondition{a, b}, ""},
		{"two removed, from the last down, after testing every type read and the statuses decided on",
			[]operatorv1.OperatorCondition{a, b, c}, []operatorv1.OperatorCondition{b},
			`[{"op":"test","path":"/status/conditions/0/type","value":"AAvailable"},{"op":"test","path":"/status/conditions/0/status","value":"True"},` +
				`{"op":"test","path":"/status/conditions/1/type","value":"BProgressing"},` +
				`{"op":"test","path":"/status/conditions/2/type","value":"CDegraded"},{"op":"test","path":"/status/conditions/2/status","value":"True"},` +
				`{"op":"test","path":"/status/conditions/2/type","value":"CDegraded"},{"op":"remove","path":"/status/conditions/2"},` +
				`{"op":"test","path":"/status/conditions/0/type","value":"AAvailable"},{"op":"remove","path":"/status/conditions/0"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if p := removalPatch(tc.read, tc.kept); p != nil {
				b, err := p.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				got = string(b)
			}
			if got != tc.want {
				t.Errorf("patch\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// library-go's controllers apply their conditions through a Writer: only declared types reach the
// client.
func TestWriterAppliesOnlyDeclaredTypes(t *testing.T) {
	fake := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{}, &operatorv1.OperatorStatus{}, nil)
	w := Declared(fake, conditiontypes.New([]string{"XDegraded"}))
	apply := func(typ string) error {
		return w.ApplyOperatorStatus(context.Background(), "X", applyoperatorv1.OperatorStatus().WithConditions(
			applyoperatorv1.OperatorCondition().WithType(typ).WithStatus(operatorv1.ConditionFalse)))
	}
	if err := apply("XDegraded"); err != nil {
		t.Errorf("a declared type: %v", err)
	}
	if err := apply("YDegraded"); err == nil {
		t.Error("an undeclared type was applied")
	}
	_, s, _, _ := fake.GetOperatorState()
	if got := typesOf(*s); !slices.Equal(got, []string{"XDegraded"}) {
		t.Errorf("conditions %v, want [XDegraded]", got)
	}
}
