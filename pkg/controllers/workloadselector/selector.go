// Package workloadselector recreates an operand workload whose immutable selector is not the operator's.
package workloadselector

import (
	"fmt"
	"sort"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kind is the kind of an operand workload.
type Kind string

const (
	Deployment Kind = "Deployment"
	DaemonSet  Kind = "DaemonSet"
)

// Workload is an operand workload as the operator renders it.
type Workload struct {
	Kind     Kind
	Name     string
	Selector *metav1.LabelSelector
}

// Differs reports whether an existing workload's selector is not the rendered one, so that applying
// the rendering can never succeed: spec.selector cannot be changed in place.
func Differs(existing, rendered *metav1.LabelSelector) bool {
	return !apiequality.Semantic.DeepEqual(normal(existing), normal(rendered))
}

func normal(s *metav1.LabelSelector) *metav1.LabelSelector {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return &metav1.LabelSelector{}
	}
	out := &metav1.LabelSelector{MatchLabels: s.MatchLabels, MatchExpressions: s.MatchExpressions}
	if len(out.MatchLabels) == 0 {
		out.MatchLabels = nil
	}
	if len(out.MatchExpressions) == 0 {
		out.MatchExpressions = nil
	}
	return out
}

// Describe prints a selector for an event, its labels in a stable order.
func Describe(s *metav1.LabelSelector) string {
	if s == nil {
		return "{}"
	}
	var parts []string
	for k, v := range s.MatchLabels {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	for _, e := range s.MatchExpressions {
		parts = append(parts, fmt.Sprintf("%s %s %v", e.Key, strings.ToLower(string(e.Operator)), e.Values))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
