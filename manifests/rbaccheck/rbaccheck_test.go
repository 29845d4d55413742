package rbaccheck

import (
	"strings"
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

func TestNotHeldLeastPrivilegeUnexplained(t *testing.T) {
	held := []Role{{Kind: "ClusterRole", Name: "op", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}}}}
	grants := []Role{{Kind: "Role", Namespace: "ns", Name: "operand", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "delete"}}}}}
	if got := NotHeld(held, grants); len(got) != 1 || got[0] != `Role ns/operand grants delete ""/configmaps` {
		t.Errorf("NotHeld: %q", got)
	}

	bad := []Role{{Kind: "ClusterRole", Name: "wide", Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}},
	}}}
	got := LeastPrivilege(bad, func(r Rule) []string {
		if r.Grants("", "pods") {
			return []string{r.Where() + ": pods"}
		}
		return nil
	})
	want := []string{
		"ClusterRole /wide rule 0: wildcard in [*]",
		"ClusterRole /wide rule 0: cluster-wide Secret access",
		"ClusterRole /wide rule 1: bind without resourceNames",
		"ClusterRole /wide rule 2: pods",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("LeastPrivilege:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	lines, rules := Unexplained("rules:\n# why\n- apiGroups: [\"\"]\n- apiGroups: [apps]\n")
	if rules != 2 || len(lines) != 1 || lines[0] != 4 {
		t.Errorf("Unexplained: lines %v of %d rules, want [4] of 2", lines, rules)
	}
}
