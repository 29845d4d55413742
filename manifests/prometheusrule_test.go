package manifests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
)

// runbookURL is where every alert's runbook section lives: docs/runbooks.md of this repository.
const runbookURL = "https://github.com/manila-csi/manila-csi-driver-operator/blob/main/docs/runbooks.md#"

// prometheusRules returns the spec of every PrometheusRule in the manifests, as the rule file
// Prometheus would load (the prometheus-operator writes spec.groups out as one).
func prometheusRules(t *testing.T) map[string][]byte {
	t.Helper()
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, o := range objs {
		if o.GetKind() != "PrometheusRule" {
			continue
		}
		spec, _, err := unstructured.NestedMap(o.Object, "spec")
		if err != nil {
			t.Fatal(err)
		}
		data, err := yaml.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		out[o.GetName()] = data
	}
	if len(out) == 0 {
		t.Fatal("no PrometheusRule in the manifests")
	}
	return out
}

// What `promtool check rules` checks, with the library it uses: the groups parse strictly (unknown
// fields refused), every expression parses as PromQL, templates in labels and annotations parse. Then
// our own rules: every alert has a severity, a summary, a description and a runbook_url pointing at
// a section of docs/runbooks.md, and reads only metrics the operator exports.
func TestPrometheusRulesParse(t *testing.T) {
	runbooks := runbookSections(t)
	alerts := 0
	for name, data := range prometheusRules(t) {
		groups, errs := rulefmt.Parse(data, false, model.UTF8Validation)
		for _, err := range errs {
			t.Errorf("PrometheusRule %s: %v", name, err)
		}
		if groups == nil {
			continue
		}
		for _, g := range groups.Groups {
			for _, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				alerts++
				where := "PrometheusRule " + name + " alert " + r.Alert
				expr, err := parser.ParseExpr(r.Expr)
				if err != nil {
					t.Errorf("%s: expr: %v", where, err)
					continue
				}
				if err := keepsNamespace(expr); err != nil {
					t.Errorf("%s: %v", where, err)
				}
				for _, m := range selectedMetrics(expr) {
					if !strings.HasPrefix(m, metrics.Namespace+"_") {
						t.Errorf("%s reads %s, which the operator does not export", where, m)
					}
				}
				if sev := r.Labels["severity"]; sev != "warning" && sev != "critical" && sev != "info" {
					t.Errorf("%s: severity %q, want warning, critical or info", where, sev)
				}
				for _, a := range []string{"summary", "description", "runbook_url"} {
					if strings.TrimSpace(r.Annotations[a]) == "" {
						t.Errorf("%s: no %s annotation", where, a)
					}
				}
				anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], runbookURL)
				section, found := runbooks[anchor]
				if !ok || !found {
					t.Errorf("%s: runbook_url %q is not a section of docs/runbooks.md (%s...)", where, r.Annotations["runbook_url"], runbookURL)
				}
				for _, part := range []string{"**Meaning.**", "**Impact.**", "**Diagnosis.**", "**Mitigation.**", "check-cloud"} {
					if found && !strings.Contains(section, part) {
						t.Errorf("%s: its runbook section lacks %s", where, part)
					}
				}
				if anchor != strings.ToLower(r.Alert) {
					t.Errorf("%s: runbook section %q, want %q (the alert's name)", where, anchor, strings.ToLower(r.Alert))
				}
			}
		}
	}
	if alerts < 3 {
		t.Errorf("%d alerts, want at least: polls failing, a foreign class, an invalid config", alerts)
	}
}

// A broken rule is refused: the check above can fail.
func TestPrometheusRuleCheckRefusesBrokenRules(t *testing.T) {
	for name, rule := range map[string]string{
		"bad PromQL":       "groups: [{name: g, rules: [{alert: A, expr: 'sum(up'}]}]",
		"unknown field":    "groups: [{name: g, rules: [{alert: A, expr: up, severity: warning}]}]",
		"broken template":  "groups: [{name: g, rules: [{alert: A, expr: up, annotations: {summary: '{{ $value '}}]}]",
		"neither kind":     "groups: [{name: g, rules: [{expr: up}]}]",
		"duplicate groups": "groups: [{name: g, rules: [{alert: A, expr: up}]}, {name: g, rules: [{alert: B, expr: up}]}]",
	} {
		if _, errs := rulefmt.Parse([]byte(rule), false, model.UTF8Validation); len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}

// keepsNamespace returns an error when expr drops the namespace label that OpenShift routes alerts
// by: an aggregation without "by (namespace)" (or "without" naming it), or a vector match "on" other
// labels only.
func keepsNamespace(expr parser.Expr) error {
	var problem error
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		switch n := node.(type) {
		case *parser.AggregateExpr:
			if slices.Contains(n.Grouping, "namespace") == n.Without {
				problem = fmt.Errorf("%s drops the namespace label", n)
			}
		case *parser.BinaryExpr:
			if m := n.VectorMatching; m != nil && m.On && !slices.Contains(m.MatchingLabels, "namespace") && n.LHS.Type() == parser.ValueTypeVector && n.RHS.Type() == parser.ValueTypeVector {
				problem = fmt.Errorf("%s matches on labels without namespace", n)
			}
		}
		return nil
	})
	return problem
}

// The namespace check refuses what drops the label and passes what keeps it.
func TestKeepsNamespace(t *testing.T) {
	for expr, keeps := range map[string]bool{
		`sum(rate(x[5m])) > 0`:                                 false,
		`max without (namespace) (x) > 0`:                      false,
		`sum by (namespace) (x) > 0 unless sum(y) > 0`:         false,
		`x > on (job) y`:                                       false,
		`x > 0`:                                                true,
		`min by (namespace) (x) == 0`:                          true,
		`max without (pod) (x) > 0`:                            true,
		`sum by (namespace) (x) unless sum by (namespace) (y)`: true,
	} {
		e, err := parser.ParseExpr(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if err := keepsNamespace(e); (err == nil) != keeps {
			t.Errorf("%s: keepsNamespace = %v, want keeps=%v", expr, err, keeps)
		}
	}
}

// selectedMetrics returns the metric names an expression reads.
func selectedMetrics(expr parser.Expr) []string {
	var out []string
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		if vs, ok := node.(*parser.VectorSelector); ok {
			out = append(out, vs.Name)
		}
		return nil
	})
	return out
}

var (
	heading     = regexp.MustCompile(`(?m)^## +(.+?)\s*$`)
	notInAnchor = regexp.MustCompile(`[^a-z0-9 _-]`)
)

// runbookSections returns docs/runbooks.md's "## " sections by their GitHub anchor.
func runbookSections(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "runbooks.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	out := map[string]string{}
	matches := heading.FindAllStringSubmatchIndex(text, -1)
	for i, m := range matches {
		end := len(text)
		if i+1 < len(matches) {
			end = matches[i+1][0]
		}
		anchor := notInAnchor.ReplaceAllString(strings.ToLower(text[m[2]:m[3]]), "")
		out[strings.ReplaceAll(anchor, " ", "-")] = text[m[1]:end]
	}
	return out
}
