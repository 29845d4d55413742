package classplan

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Every share-type name maps to a valid DNS-1123 subdomain, deterministically, and no two share
// types share a class, in any order, for NFS and CephFS classes alike; no NFS class name is a CephFS one.
func FuzzClassNames(f *testing.F) {
	for _, seed := range [][2]string{{"gold", "Gold"}, {"Gold_NFS", "gold-nfs"}, {"a..b", "a.-b"}, {"日本", "Größe"}, {"", "-"},
		{strings.Repeat("x", 300), strings.Repeat("x", 301)}, {"v1.2", "V1_2"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		types := []string{a}
		if b != a {
			types = append(types, b)
		}
		nfs := map[string]bool{}
		for _, prefix := range []string{NamePrefix, CephFSNamePrefix} {
			got := ClassNames(prefix, types, nil)
			reversed := slices.Clone(types)
			slices.Reverse(reversed)
			again := ClassNames(prefix, reversed, nil)
			seen := map[string]string{}
			for _, st := range types {
				name := got[st]
				if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
					t.Fatalf("share type %q -> %q: %v", st, name, errs)
				}
				if !strings.HasPrefix(name, prefix) {
					t.Fatalf("share type %q -> %q lacks the prefix %s", st, name, prefix)
				}
				if again[st] != name {
					t.Fatalf("share type %q -> %q, and in another order %q", st, name, again[st])
				}
				if other, dup := seen[name]; dup {
					t.Fatalf("share types %q and %q both map to %q", other, st, name)
				}
				seen[name] = st
				// No NFS class name is ever a CephFS class name: the sets never collide.
				if prefix == NamePrefix {
					nfs[name] = true
				} else if nfs[name] || strings.HasPrefix(name, NamePrefix) {
					t.Fatalf("share type %q: CephFS class %q is an NFS class name", st, name)
				}
			}
		}
	})
}
