// Package cephcsi knows the ceph-csi releases the CephFS instance of the driver can forward to: it
// reads a release from an image reference and refuses those known to reject Manila's shares.
package cephcsi

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Recommended is the release the docs and messages name as the one to use.
const Recommended = "v3.18.0"

// Version is a ceph-csi release, vMAJOR.MINOR.PATCH.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string { return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch) }

func (v Version) less(o Version) bool {
	if v.Major != o.Major {
		return v.Major < o.Major
	}
	if v.Minor != o.Minor {
		return v.Minor < o.Minor
	}
	return v.Patch < o.Patch
}

// badRange is a span of releases [From, To] that fail Manila's volumes, and why.
type badRange struct {
	From, To Version
	Why      string
	FixedIn  string
}

// KnownBad are the releases whose CephFS node server rejects the share UUIDs manila-csi-plugin sends
// as volume IDs: the volume-ID format check of ceph-csi PR #5957 (util.ValidateVolumeID, "the
// volumeID has an unexpected format"; ceph-csi #6332 and #6347, reported from OKD 4.21 on OpenStack),
// backported to the 3.16 branch by PR #6022 before v3.16.1, which skips the check only for
// staticVolume=true until ceph-csi #6355 (merged on devel in 2026-07) also skips it for Manila's
// provisionVolume=false. v3.16.0 predates the check. The release notes of v3.16.3, v3.17.1 and v3.17.2
// list no backport of #6355; v3.18.0 was cut from devel after it (docs/configuration.md).
var KnownBad = []badRange{{
	From: Version{3, 16, 1}, To: Version{3, 17, 2},
	Why:     "its CephFS node plugin rejects Manila's share IDs (\"volumeID has an unexpected format\", ceph-csi issue #6332)",
	FixedIn: "v3.16.0 or " + Recommended + " and later",
}}

var tagVersion = regexp.MustCompile(`^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$`)

// ImageVersion returns the release an image reference's tag names; ok is false for an image named
// by digest only, by a tag that is not a release (canary, latest) or without a tag.
func ImageVersion(image string) (Version, bool) {
	ref := image
	if i := strings.Index(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	slash := strings.LastIndex(ref, "/")
	colon := strings.LastIndex(ref, ":")
	if colon <= slash {
		return Version{}, false
	}
	m := tagVersion.FindStringSubmatch(ref[colon+1:])
	if m == nil {
		return Version{}, false
	}
	var n [3]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	return Version{n[0], n[1], n[2]}, true
}

// CheckImage says why image must not be used, "" when it may: an empty or malformed reference, or a
// release in KnownBad. A release that cannot be read from the reference is accepted: the docs list the
// supported releases, and the node plugin's own errors name the cause.
func CheckImage(image string) string {
	if strings.TrimSpace(image) != image || image == "" || strings.ContainsAny(image, " \t\n\"'") {
		return "not an image reference"
	}
	v, ok := ImageVersion(image)
	if !ok {
		return ""
	}
	for _, r := range KnownBad {
		if !v.less(r.From) && !r.To.less(v) {
			return fmt.Sprintf("ceph-csi %s is known not to work with Manila: %s; use %s", v, r.Why, r.FixedIn)
		}
	}
	return ""
}
