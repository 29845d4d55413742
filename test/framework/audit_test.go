package framework

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestReadAuditSkipsALineBeingWritten(t *testing.T) {
	const first = `{"verb":"create","stageTimestamp":"2026-11-29T10:00:00.000000Z"}`
	const second = `{"verb":"update","stageTimestamp":"2026-11-29T10:00:01.000000Z"}`
	for _, tc := range []struct {
		name, log string
		want      []string
	}{
		{"whole lines", first + "\n" + second + "\n", []string{"create", "update"}},
		{"the last line half written", first + "\n" + second[:20], []string{"create"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.log")
			if err := os.WriteFile(path, []byte(tc.log), 0o600); err != nil {
				t.Fatal(err)
			}
			events, err := ReadAudit(path, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			var verbs []string
			for _, e := range events {
				verbs = append(verbs, e.Verb)
			}
			if !slices.Equal(verbs, tc.want) {
				t.Errorf("verbs %v; want %v", verbs, tc.want)
			}
		})
	}
}
