package hosted

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/manifests/rbaccheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// beyondCSO are the management-side rights manifests/hosted grants that cluster-storage-operator's
// hosted Role does not, each for something only manifests/hosted's own Deployment has; under CSO's
// Deployment the operator does without them (TestCSOHostedImageSwap: no request refused).
var beyondCSO = map[string]string{
	`patch ""/pods/status`: "the readiness gate manila.csi.openstack.org/GuestAPIReachable of manifests/hosted's Deployment",
}

func csoHostedRole(t *testing.T) []rbaccheck.Role {
	t.Helper()
	data, err := os.ReadFile("testdata/cso-hosted-role.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(strings.ReplaceAll(string(data), "${NAMESPACE}", hcp)), &obj); err != nil {
		t.Fatal(err)
	}
	roles, err := rbaccheck.Roles([]*unstructured.Unstructured{{Object: obj}})
	if err != nil || len(roles) != 1 {
		t.Fatalf("CSO's hosted Role: %v (%d roles)", err, len(roles))
	}
	return roles
}

// The hosted operator's rights in the HCP namespace are no wider than cluster-storage-operator's
// hosted Role for it: every verb on every resource (and name) ours grants, CSO's grants too.
func TestRBACNoWiderThanCSO(t *testing.T) {
	mgmt, _ := mustObjects(t)
	cso := csoHostedRole(t)
	used := map[string]bool{}
	for _, r := range boundRoles(t, mgmt, hcp, names.OperatorName) {
		for i, rule := range r.Rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, verb := range rule.Verbs {
						key := fmt.Sprintf("%s %q/%s", verb, g, res)
						if rbaccheck.Holds(cso, hcp, g, res, verb, rule.ResourceNames) {
							continue
						}
						if _, ok := beyondCSO[key]; ok {
							used[key] = true
							continue
						}
						t.Errorf("%s %s rule %d grants %s %v, which cluster-storage-operator's hosted Role does not", r.Kind, r.Name, i, key, rule.ResourceNames)
					}
				}
			}
		}
	}
	for key := range beyondCSO {
		if !used[key] {
			t.Errorf("beyondCSO lists %s, which manifests/hosted no longer grants: remove it", key)
		}
	}
}

// Wherever the name is known, a write in the HCP namespace names its object: update, patch and delete
// carry resourceNames, except on what has no name in advance (a pod's own status, events).
func TestRBACWritesByName(t *testing.T) {
	mgmt, _ := mustObjects(t)
	unnamed := map[string]string{
		"pods/status": "the operator's own pod, named by its ReplicaSet",
		"events":      "named by the event recorder for each occurrence",
	}
	for _, r := range boundRoles(t, mgmt, hcp, names.OperatorName) {
		for i, rule := range r.Rules {
			if len(rule.ResourceNames) > 0 {
				continue
			}
			for _, verb := range rule.Verbs {
				if verb != "update" && verb != "patch" && verb != "delete" {
					continue
				}
				for _, res := range rule.Resources {
					if _, ok := unnamed[res]; !ok {
						t.Errorf("%s %s rule %d: %s on every %s of the namespace", r.Kind, r.Name, i, verb, res)
					}
				}
			}
		}
	}
}
