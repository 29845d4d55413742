package nodeupdates

import (
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
)

func TestPending(t *testing.T) {
	d := Deps{Name: "CephCSINodeUpdateController", Namespace: "ns", DaemonSet: "ds", Consequence: "that ends its mounts"}
	many := make([]string, 12)
	for i := range many {
		many[i] = fmt.Sprintf("node-%02d", i)
	}
	for _, tc := range []struct {
		name   string
		nodes  []string
		status operatorv1.ConditionStatus
		says   []string
		not    []string
	}{
		{name: "none", status: operatorv1.ConditionFalse},
		{name: "two", nodes: []string{"node-a", "node-b"}, status: operatorv1.ConditionTrue,
			says: []string{"ns/ds", "OnDelete", "2 node(s)", "node-a, node-b.", "that ends its mounts"}},
		{name: "more than shown", nodes: many, status: operatorv1.ConditionTrue,
			says: []string{"12 node(s)", "node-09 and 2 more"}, not: []string{"node-10", "node-11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pending(d, tc.nodes)
			if c.Type != "CephCSINodeUpdateControllerPending" || c.Status != tc.status {
				t.Fatalf("condition %+v", c)
			}
			for _, s := range tc.says {
				if !strings.Contains(c.Message, s) {
					t.Errorf("message %q does not say %q", c.Message, s)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(c.Message, s) {
					t.Errorf("message %q names %q", c.Message, s)
				}
			}
		})
	}
}
