// Package conditiontypes says, as data, which condition types on the ClusterCSIDriver belong to whom:
// each controller's exact types, never a prefix to match, so that a predecessor's type that happens to
// start with one of our controllers' names (4.17's SecretSyncDegraded beside our SecretSyncController)
// is never taken for ours.
package conditiontypes

import (
	"slices"

	operatorv1 "github.com/openshift/api/operator/v1"
)

// Set is a set of exact condition types.
type Set struct{ types []string }

// New returns the set of the given types.
func New(types ...[]string) Set {
	all := slices.Concat(types...)
	slices.Sort(all)
	return Set{types: slices.Compact(all)}
}

// Union is the set of every type of sets.
func Union(sets ...Set) Set {
	var all [][]string
	for _, s := range sets {
		all = append(all, s.types)
	}
	return New(all...)
}

// Has is whether conditionType is one of the set's, exactly.
func (s Set) Has(conditionType string) bool {
	_, found := slices.BinarySearch(s.types, conditionType)
	return found
}

// Types returns the set's types, sorted.
func (s Set) Types() []string { return slices.Clone(s.types) }

// Workloads are the types library-go's Deployment and DaemonSet controllers of these names write:
// <name>Available, <name>Progressing and <name>Degraded.
func Workloads(names ...string) []string {
	return Each(names, operatorv1.OperatorStatusTypeAvailable, operatorv1.OperatorStatusTypeProgressing, operatorv1.OperatorStatusTypeDegraded)
}

// Degraded are the types library-go's controllers of these names write that report only failures
// (static resources, ServiceMonitors, management state, config observation, a factory controller
// WithSyncDegradedOnError): <name>Degraded.
func Degraded(names ...string) []string { return Each(names, operatorv1.OperatorStatusTypeDegraded) }

// Each is <name><kind> for each of names and kinds.
func Each(names []string, kinds ...string) []string {
	var out []string
	for _, n := range names {
		for _, k := range kinds {
			out = append(out, n+k)
		}
	}
	return out
}
