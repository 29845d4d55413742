package cephcsi

import (
	"strings"
	"testing"
)

func TestCheckImage(t *testing.T) {
	for _, tc := range []struct {
		image   string
		refused string // a substring of the reason, "" when accepted
	}{
		{"quay.io/cephcsi/cephcsi:v3.16.0", ""},
		{"quay.io/cephcsi/cephcsi:v3.16.1", "v3.16.1 is known not to work"},
		{"quay.io/cephcsi/cephcsi:v3.16.2", "v3.16.2"},
		{"quay.io/cephcsi/cephcsi:v3.17.0", "use v3.16.0 or v3.18.0 and later"},
		{"quay.io/cephcsi/cephcsi:v3.16.3", "v3.16.3"},
		{"quay.io/cephcsi/cephcsi:v3.17.1", "v3.17.1"},
		{"quay.io/cephcsi/cephcsi:v3.17.2", "v3.17.2"},
		{"quay.io/cephcsi/cephcsi:v3.18.0", ""},
		{"quay.io/cephcsi/cephcsi:3.17.0", "v3.17.0"},
		{"registry:5000/cephcsi:v3.17.0-rc1", "v3.17.0"},
		{"registry:5000/cephcsi", ""},
		{"quay.io/cephcsi/cephcsi@sha256:0123", ""},
		{"quay.io/cephcsi/cephcsi:v3.17.0@sha256:0123", "v3.17.0"},
		{"quay.io/cephcsi/cephcsi:canary", ""},
		{"", "not an image reference"},
		{"a b", "not an image reference"},
	} {
		got := CheckImage(tc.image)
		if tc.refused == "" && got != "" || tc.refused != "" && !strings.Contains(got, tc.refused) {
			t.Errorf("CheckImage(%q) = %q, want %q", tc.image, got, tc.refused)
		}
	}
}
