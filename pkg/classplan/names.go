// Package classplan computes the StorageClasses the operator wants for Manila's share types: their
// names, parameters and the changes needed to get there. It is pure: no API calls.
package classplan

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"sort"
	"strings"
)

const (
	// NamePrefix starts every NFS class name, as the predecessor's did.
	NamePrefix = "csi-manila-"
	// CephFSNamePrefix starts every CephFS class name. No NFS class name starts with it (they all
	// start with NamePrefix), so the two sets of names never collide.
	CephFSNamePrefix = "manila-cephfs-"
	// maxNameLength is a DNS-1123 subdomain's limit.
	maxNameLength = 253
	hashLength    = 8
)

// legacyName is the predecessor's mapping (lowercase, "_" -> "-"); an ordinary share type keeps it.
func legacyName(shareType string) string {
	return strings.ReplaceAll(strings.ToLower(shareType), "_", "-")
}

var (
	invalidRun   = regexp.MustCompile(`[^a-z0-9.-]+`)
	separatorRun = regexp.MustCompile(`[.-]{2,}`)
)

// sanitize lowercases and turns every run of characters a DNS-1123 subdomain cannot hold into "-".
// A run of separators holding a '.' (as in "..", ".-") would make an empty or dash-edged label, so it
// becomes "-"; runs of '-' alone stay as written. Leading and trailing '-' and '.' are trimmed.
func sanitize(shareType string) string {
	s := invalidRun.ReplaceAllString(strings.ToLower(shareType), "-")
	s = separatorRun.ReplaceAllStringFunc(s, func(run string) string {
		if strings.Contains(run, ".") {
			return "-"
		}
		return run
	})
	return strings.Trim(s, "-.")
}

func nameHash(shareType string) string {
	sum := sha256.Sum256([]byte(shareType))
	return hex.EncodeToString(sum[:])[:hashLength]
}

// ClassNames maps share-type names to StorageClass names starting with prefix (NamePrefix or
// CephFSNamePrefix), collision-free.
//
// A name is the prefix plus the sanitized share-type name. When that differs from the predecessor's
// mapping, collides with another share type's, or is too long, "-" and 8 hex characters of a SHA-256
// of the share-type name are appended (the base truncated to fit). In a collision, a share type that
// already owns the plain name (owners: class name -> share-type name) keeps it, so adding a type never
// renames an existing class; otherwise a share type whose mapping is its own name unchanged keeps it.
func ClassNames(prefix string, shareTypes []string, owners map[string]string) map[string]string {
	base := map[string]string{}
	byBase := map[string][]string{}
	for _, st := range shareTypes {
		b := sanitize(st)
		base[st] = b
		byBase[b] = append(byBase[b], st)
	}
	out := map[string]string{}
	for _, st := range shareTypes {
		b := base[st]
		plain := b != "" && b == legacyName(st) && len(prefix)+len(b) <= maxNameLength
		if plain && len(byBase[b]) > 1 {
			plain = keepsCollidingName(st, byBase[b], prefix+b, owners)
		}
		if plain {
			out[st] = prefix + b
			continue
		}
		out[st] = hashedName(prefix, st)
	}
	return out
}

// hashedName is a share type's name with the hash suffix, which no other share type's name can take.
func hashedName(prefix, st string) string {
	b := sanitize(st)
	room := maxNameLength - len(prefix) - 1 - hashLength
	if len(b) > room {
		b = strings.TrimRight(b[:room], "-.")
	}
	if b == "" {
		return prefix + nameHash(st)
	}
	return prefix + b + "-" + nameHash(st)
}

// keepsCollidingName decides which of the share types sharing one plain name keeps it.
func keepsCollidingName(st string, colliding []string, className string, owners map[string]string) bool {
	if owner, ok := owners[className]; ok {
		if slices.Contains(colliding, owner) {
			return st == owner
		}
	}
	var exact []string
	for _, c := range colliding {
		if c == legacyName(c) {
			exact = append(exact, c)
		}
	}
	sort.Strings(exact)
	return len(exact) == 1 && exact[0] == st
}

// PlainName is a share type's NFS class name without a hash suffix, the predecessor's mapping:
// check-cloud compares a class name with it to explain why a suffix was added.
func PlainName(shareType string) string { return PlainNameWith(NamePrefix, shareType) }

// PlainNameWith is PlainName for the class names starting with prefix (CephFSNamePrefix).
func PlainNameWith(prefix, shareType string) string { return prefix + legacyName(shareType) }
