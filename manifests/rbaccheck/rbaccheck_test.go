package rbaccheck

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
)

func TestHolds(t *testing.T) {
	roles := []Role{
		{Kind: "ClusterRole", Name: "c", Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
			{APIGroups: []string{"security.openshift.io"}, Resources: []string{"securitycontextconstraints"}, ResourceNames: []string{"privileged"}, Verbs: []string{"use"}},
		}},
		{Kind: "Role", Namespace: "ns", Name: "r", Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}},
		}},
	}
	for _, tc := range []struct {
		name                             string
		namespace, group, resource, verb string
		names                            []string
		want                             bool
	}{
		{"cluster-wide rule", "", "", "nodes", "get", nil, true},
		{"cluster-wide rule in a namespace", "ns", "", "nodes", "get", nil, true},
		{"another verb", "", "", "nodes", "list", nil, false},
		{"a Role in its namespace", "ns", "", "secrets", "get", nil, true},
		{"a Role does not grant cluster-wide", "", "", "secrets", "get", nil, false},
		{"a Role does not grant in another namespace", "other", "", "secrets", "get", nil, false},
		{"a named rule covers that name", "", "security.openshift.io", "securitycontextconstraints", "use", []string{"privileged"}, true},
		{"a named rule does not cover another name", "", "security.openshift.io", "securitycontextconstraints", "use", []string{"anyuid"}, false},
		{"a named rule does not cover every name", "", "security.openshift.io", "securitycontextconstraints", "use", nil, false},
	} {
		if got := Holds(roles, tc.namespace, tc.group, tc.resource, tc.verb, tc.names); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}
