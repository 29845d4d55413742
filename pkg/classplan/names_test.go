package classplan

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestClassNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name      string
		types     []string
		owners    map[string]string
		want      map[string]string
		wantHash  []string // these get "-" + 8 hex appended to the given prefix
		hashBases map[string]string
	}{
		{name: "ordinary names keep the predecessor's mapping",
			types: []string{"gold", "default", "nfs_standard", "UPPER_CASE", "v1.2", "a--b"},
			want: map[string]string{"gold": "csi-manila-gold", "default": "csi-manila-default", "nfs_standard": "csi-manila-nfs-standard",
				"UPPER_CASE": "csi-manila-upper-case", "v1.2": "csi-manila-v1.2", "a--b": "csi-manila-a--b"}},
		{name: "digits only", types: []string{"12345"}, want: map[string]string{"12345": "csi-manila-12345"}},
		{name: "space", types: []string{"a b"}, hashBases: map[string]string{"a b": "csi-manila-a-b"}},
		{name: "non-ASCII", types: []string{"Größe"}, hashBases: map[string]string{"Größe": "csi-manila-gr-e"}},
		{name: "all invalid", types: []string{"日本"}, hashBases: map[string]string{"日本": "csi-manila"}},
		{name: "leading and trailing separators", types: []string{"-gold-", "_silver_", ".bronze."},
			hashBases: map[string]string{"-gold-": "csi-manila-gold", "_silver_": "csi-manila-silver", ".bronze.": "csi-manila-bronze"}},
		{name: "double dot", types: []string{"a..b"}, hashBases: map[string]string{"a..b": "csi-manila-a-b"}},
		{name: "dot dash", types: []string{"a.-b"}, hashBases: map[string]string{"a.-b": "csi-manila-a-b"}},
		{name: "dots only", types: []string{".."}, hashBases: map[string]string{"..": "csi-manila"}},
		{name: "symbols", types: []string{"gold/nfs:v2"}, hashBases: map[string]string{"gold/nfs:v2": "csi-manila-gold-nfs-v2"}},
		{name: "300 characters", types: []string{long}, hashBases: map[string]string{long: "csi-manila-" + long[:233]}},
		{name: "collision: the unchanged name keeps it", types: []string{"Gold_NFS", "gold-nfs"},
			want:      map[string]string{"gold-nfs": "csi-manila-gold-nfs"},
			hashBases: map[string]string{"Gold_NFS": "csi-manila-gold-nfs"}},
		{name: "collision: the current owner keeps it", types: []string{"Gold_NFS", "gold-nfs"},
			owners:    map[string]string{"csi-manila-gold-nfs": "Gold_NFS"},
			want:      map[string]string{"Gold_NFS": "csi-manila-gold-nfs"},
			hashBases: map[string]string{"gold-nfs": "csi-manila-gold-nfs"}},
		{name: "collision without a canonical name: both hashed", types: []string{"A_B", "a_B"},
			hashBases: map[string]string{"A_B": "csi-manila-a-b", "a_B": "csi-manila-a-b"}},
		{name: "case-only collision", types: []string{"Gold", "gold"},
			want: map[string]string{"gold": "csi-manila-gold"}, hashBases: map[string]string{"Gold": "csi-manila-gold"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClassNames(NamePrefix, tt.types, tt.owners)
			seen := map[string]string{}
			for _, st := range tt.types {
				name := got[st]
				if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
					t.Errorf("%q -> %q is not a DNS-1123 subdomain: %v", st, name, errs)
				}
				if other, dup := seen[name]; dup {
					t.Errorf("%q and %q both map to %q", st, other, name)
				}
				seen[name] = st
				if want, ok := tt.want[st]; ok && name != want {
					t.Errorf("%q -> %q, want %q", st, name, want)
				}
				if base, ok := tt.hashBases[st]; ok {
					wantName := base + "-" + nameHash(st)
					if name != wantName {
						t.Errorf("%q -> %q, want %q", st, name, wantName)
					}
				}
			}
		})
	}
}

func TestClassNamesAreStable(t *testing.T) {
	a := ClassNames(NamePrefix, []string{"x y", "gold"}, nil)
	b := ClassNames(NamePrefix, []string{"gold", "x y", "new one"}, nil)
	if a["x y"] != b["x y"] || a["gold"] != b["gold"] {
		t.Errorf("adding a share type renamed others: %v vs %v", a, b)
	}
}
