// Package rbaccheck reads the roles among manifest objects and answers what the kube-apiserver's
// escalation check asks: does a set of roles grant a verb. The standalone and the hosted manifests'
// tests both use it to show the operator holds what the roles it creates grant.
package rbaccheck

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Role is a ClusterRole (Namespace empty) or a Role, with its rules.
type Role struct {
	Kind, Namespace, Name string
	Rules                 []rbacv1.PolicyRule
}

// Roles returns the ClusterRoles and Roles among objs.
func Roles(objs []*unstructured.Unstructured) ([]Role, error) {
	var out []Role
	for _, o := range objs {
		var rules []rbacv1.PolicyRule
		switch o.GetKind() {
		case "ClusterRole", "Role":
			var r rbacv1.ClusterRole // a Role's fields are a subset: rules and metadata
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r); err != nil {
				return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
			}
			rules = r.Rules
		default:
			continue
		}
		ns := o.GetNamespace()
		if o.GetKind() == "ClusterRole" {
			ns = ""
		}
		out = append(out, Role{Kind: o.GetKind(), Namespace: ns, Name: o.GetName(), Rules: rules})
	}
	return out, nil
}

// BoundTo returns the roles among objs that a binding among objs grants the ServiceAccount
// namespace/name.
func BoundTo(objs []*unstructured.Unstructured, namespace, name string) ([]Role, error) {
	bound := map[string]bool{}
	for _, o := range objs {
		if o.GetKind() != "ClusterRoleBinding" && o.GetKind() != "RoleBinding" {
			continue
		}
		var b rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &b); err != nil {
			return nil, fmt.Errorf("%s %s: %w", o.GetKind(), o.GetName(), err)
		}
		if slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == "ServiceAccount" && s.Name == name && s.Namespace == namespace
		}) {
			ns := o.GetNamespace()
			if b.RoleRef.Kind == "ClusterRole" {
				ns = ""
			}
			bound[b.RoleRef.Kind+"/"+ns+"/"+b.RoleRef.Name] = true
		}
	}
	roles, err := Roles(objs)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(roles, func(r Role) bool { return !bound[r.Kind+"/"+r.Namespace+"/"+r.Name] }), nil
}

// Holds tells whether roles grant verb on the resource in namespace ("" for cluster-wide), for every
// one of names (any name when names is empty), as the kube-apiserver's escalation check asks.
func Holds(roles []Role, namespace, group, resource, verb string, names []string) bool {
	for _, r := range roles {
		if r.Kind == "Role" && (namespace == "" || r.Namespace != namespace) {
			continue
		}
		for _, rule := range r.Rules {
			coversNames := len(rule.ResourceNames) == 0 ||
				len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(rule.ResourceNames, n) })
			if coversNames && slices.Contains(rule.APIGroups, group) &&
				slices.Contains(rule.Resources, resource) && slices.Contains(rule.Verbs, verb) {
				return true
			}
		}
	}
	return false
}

// NotHeld lists, one line each, what grants grant that held does not: the roles the operator creates
// that Kubernetes' escalation check would refuse it.
func NotHeld(held, grants []Role) []string {
	var out []string
	for _, r := range grants {
		for _, rule := range r.Rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, verb := range rule.Verbs {
						if !Holds(held, r.Namespace, g, res, verb, rule.ResourceNames) {
							out = append(out, fmt.Sprintf("%s %s/%s grants %s %q/%s", r.Kind, r.Namespace, r.Name, verb, g, res))
						}
					}
				}
			}
		}
	}
	return out
}

// Rule is one rule of a role, named for messages.
type Rule struct {
	Role  Role
	Index int
	rbacv1.PolicyRule
}

// Where names the rule in a message.
func (r Rule) Where() string {
	return fmt.Sprintf("%s %s/%s rule %d", r.Role.Kind, r.Role.Namespace, r.Role.Name, r.Index)
}

// LeastPrivilege lists the rules of roles that break the rules every manifest of the operator keeps:
// no wildcard, no cluster-wide Secret access, escalate, bind and impersonate only by name. more adds
// a side's own checks of each rule (nil for none).
func LeastPrivilege(roles []Role, more func(Rule) []string) []string {
	var out []string
	for _, r := range roles {
		for i, pr := range r.Rules {
			rule := Rule{Role: r, Index: i, PolicyRule: pr}
			for _, list := range [][]string{pr.APIGroups, pr.Resources, pr.Verbs, pr.ResourceNames, pr.NonResourceURLs} {
				if slices.ContainsFunc(list, func(s string) bool { return strings.Contains(s, "*") }) {
					out = append(out, fmt.Sprintf("%s: wildcard in %v", rule.Where(), list))
				}
			}
			if r.Kind == "ClusterRole" && rule.Grants("", "secrets") {
				out = append(out, rule.Where()+": cluster-wide Secret access")
			}
			for _, verb := range []string{"escalate", "bind", "impersonate"} {
				if slices.Contains(pr.Verbs, verb) && len(pr.ResourceNames) == 0 {
					out = append(out, fmt.Sprintf("%s: %s without resourceNames", rule.Where(), verb))
				}
			}
			if more != nil {
				out = append(out, more(rule)...)
			}
		}
	}
	return out
}

// Grants tells whether the rule names the resource of the API group.
func (r Rule) Grants(group, resource string) bool {
	return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource)
}

// Unexplained returns the 1-based lines of a manifest file's rules ("- apiGroups:") without a comment
// line above them naming the code that needs them, and how many rules it has.
func Unexplained(file string) (lines []int, rules int) {
	all := strings.Split(file, "\n")
	for i, l := range all {
		if strings.HasPrefix(l, "- apiGroups:") {
			rules++
			if i == 0 || !strings.HasPrefix(strings.TrimSpace(all[i-1]), "#") {
				lines = append(lines, i+1)
			}
		}
	}
	return lines, rules
}
