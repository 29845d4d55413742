package framework

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadJUnit(t *testing.T) {
	for _, tc := range []struct {
		name, xml string
		want      []SpecResult
		wantErr   bool
	}{
		{
			name: "passed, skipped with its reason, failed with its message",
			xml: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3"><testsuite name="External storage" tests="3">
 <testcase name="[It] [sig-storage] A passes" classname="External storage" status="passed" time="12.5"></testcase>
 <testcase name="[It] [sig-storage] B skips" classname="External storage" status="skipped" time="0.1"><skipped message="skipped - Driver x doesn't support Block -- skipping"></skipped></testcase>
 <testcase name="[It] [sig-storage] C fails" classname="External storage" status="failed" time="30"><failure message="Timed out after 30s" type="failed">[FAILED] Timed out after 30s</failure></testcase>
<testcase name="[It] [sig-storage] E left out by the focus" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
</testsuite></testsuites>`,
			want: []SpecResult{
				{Name: "[sig-storage] A passes", State: "passed", Seconds: 12.5},
				{Name: "[sig-storage] B skips", State: "skipped", Message: "skipped - Driver x doesn't support Block -- skipping", Seconds: 0.1},
				{Name: "[sig-storage] C fails", State: "failed", Message: "Timed out after 30s", Seconds: 30},
			},
		},
		{
			name: "a suite node that passed is not a spec; one that failed is reported",
			xml: `<testsuites><testsuite>
 <testcase name="[SynchronizedBeforeSuite]" status="passed" time="1"></testcase>
 <testcase name="[ReportAfterSuite] Kubernetes e2e suite report" status="failed" time="0"><failure message="">could not write</failure></testcase>
</testsuite></testsuites>`,
			want: []SpecResult{{Name: "[ReportAfterSuite] Kubernetes e2e suite report", State: "failed", Message: "could not write"}},
		},
		{
			name: "an error element fails the spec",
			xml:  `<testsuites><testsuite><testcase name="[It] [sig-storage] D panics" status="panicked" time="2"><error message="panic: boom" type="panicked"></error></testcase></testsuite></testsuites>`,
			want: []SpecResult{{Name: "[sig-storage] D panics", State: "failed", Message: "panic: boom", Seconds: 2}},
		},
		{name: "no report", xml: `not xml`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadJUnit([]byte(tc.xml))
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v; want error %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestSpecTable(t *testing.T) {
	table := SpecTable([]SpecResult{
		{Name: "b passes", State: "passed", Seconds: 1},
		{Name: "a skips", State: "skipped", Message: "only one\n node"},
		{Name: "c fails", State: "failed", Message: "boom"},
		{Name: "d skips", State: "skipped", Message: "no block"},
		{Name: "e skips", State: "skipped", Message: "only one node"},
	})
	lines := strings.Split(strings.TrimSpace(table), "\n")
	want := []string{"failed     0.0s  c fails", "                 boom",
		"skipped    0.0s  a skips", "                 only one node",
		"skipped    0.0s  d skips", "                 no block",
		"skipped    0.0s  e skips", "                 only one node",
		"passed     1.0s  b passes",
		"skipped, by reason:", "      2  only one node", "      1  no block",
		"1 passed, 3 skipped, 1 failed"}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("table:\n%s\nwant:\n%s", table, strings.Join(want, "\n"))
	}
}
