package framework

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// SpecResult is one spec of a ginkgo JUnit report.
type SpecResult struct {
	Name    string
	State   string // "passed", "skipped" or "failed"
	Message string // a skip's reason or a failure's message
	Seconds float64
}

// junitReport is the part of ginkgo's JUnit report ReadJUnit reads.
type junitReport struct {
	Suites []struct {
		Cases []struct {
			Name    string  `xml:"name,attr"`
			Status  string  `xml:"status,attr"`
			Time    float64 `xml:"time,attr"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// ReadJUnit returns the specs of a ginkgo JUnit report, in its order, named without ginkgo's "[It] ".
// Left out: the specs a focus filtered out (skipped, with no reason), and ginkgo's own nodes (a
// suite's BeforeSuite, ReportAfterSuite and the like) unless they failed: a failed suite node fails
// every spec after it, and the report must say so.
func ReadJUnit(data []byte) ([]SpecResult, error) {
	var r junitReport
	if err := xml.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("reading the JUnit report: %w", err)
	}
	var specs []SpecResult
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			res := SpecResult{Name: c.Name, State: "passed", Seconds: c.Time}
			switch {
			case c.Failure != nil:
				res.State, res.Message = "failed", firstNonEmpty(c.Failure.Message, c.Failure.Text)
			case c.Error != nil:
				res.State, res.Message = "failed", firstNonEmpty(c.Error.Message, c.Error.Text)
			case c.Skipped != nil || c.Status == "skipped" || c.Status == "pending":
				res.State = "skipped"
				if c.Skipped != nil {
					res.Message = c.Skipped.Message
				}
			}
			if name, ok := strings.CutPrefix(c.Name, "[It] "); ok {
				res.Name = name
			} else if res.State != "failed" {
				continue // a suite node that did its job
			}
			if res.State == "skipped" && res.Message == "skipped" {
				continue // filtered out: ginkgo gives a spec the focus left out no reason
			}
			specs = append(specs, res)
		}
	}
	return specs, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// SpecTable is specs as a table, failed first, then skipped, then passed, each group by name, with
// the counts of each state at the end.
func SpecTable(specs []SpecResult) string {
	order := map[string]int{"failed": 0, "skipped": 1, "passed": 2}
	sorted := append([]SpecResult(nil), specs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if order[sorted[i].State] != order[sorted[j].State] {
			return order[sorted[i].State] < order[sorted[j].State]
		}
		return sorted[i].Name < sorted[j].Name
	})
	var b strings.Builder
	count := map[string]int{}
	skipped := map[string]int{} // by reason
	for _, s := range sorted {
		count[s.State]++
		fmt.Fprintf(&b, "%-7s %6.1fs  %s\n", s.State, s.Seconds, s.Name)
		if s.Message != "" && s.State != "passed" {
			msg := strings.Join(strings.Fields(s.Message), " ")
			if len(msg) > 300 {
				msg = msg[:300] + "..."
			}
			fmt.Fprintf(&b, "                 %s\n", msg)
			if s.State == "skipped" {
				skipped[msg]++
			}
		}
	}
	if len(skipped) > 0 {
		reasons := slices.SortedFunc(maps.Keys(skipped), func(x, y string) int {
			return cmp.Or(cmp.Compare(skipped[y], skipped[x]), cmp.Compare(x, y))
		})
		b.WriteString("skipped, by reason:\n")
		for _, r := range reasons {
			fmt.Fprintf(&b, "%7d  %s\n", skipped[r], r)
		}
	}
	fmt.Fprintf(&b, "%d passed, %d skipped, %d failed\n", count["passed"], count["skipped"], count["failed"])
	return b.String()
}
