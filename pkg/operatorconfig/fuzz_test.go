package operatorconfig

import (
	"errors"
	"testing"
)

// Parse never panics; it either accepts a document or names a field path; an accepted one is valid.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{"", "pollInterval: 30s", "pollInterval: abc", "storageClasses: {prune: true, pruneAfterListings: -1}",
		"storageClasses:\n  defaults:\n    nfs-shareClient: 10.0.0.0/8\n", "extraMounts: [{volumes: [{name: a, emptyDir: {}}], mounts: [{name: a, mountPath: /a}]}]",
		"a: &a [x]\nb: [*a, *a]", "[1, 2]", "null", "~", "!!binary aGVsbG8="} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		cfg, err := Parse([]byte(doc))
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path == "" {
				t.Fatalf("error without a field path: %v", err)
			}
			return
		}
		if err := cfg.validate(); err != nil {
			t.Fatalf("accepted, yet invalid: %v", err)
		}
		_ = cfg.MountEntries()
		_ = cfg.StorageClasses.PruneAfter()
	})
}
