package storageclasses

import (
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

// Only a change of a node's InternalIPs, an added or a deleted node pass, and only while the
// config names machineNetwork.
func TestAddressFilter(t *testing.T) {
	node := func(rv string, addrs ...corev1.NodeAddress) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: rv}, Status: corev1.NodeStatus{Addresses: addrs}}
	}
	internal := func(ip string) corev1.NodeAddress {
		return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip}
	}
	host := corev1.NodeAddress{Type: corev1.NodeHostName, Address: "n"}
	var seen []string
	wanted := true
	f := addressFilter{wanted: func() bool { return wanted }, next: cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { seen = append(seen, "add") },
		UpdateFunc: func(any, any) { seen = append(seen, "update") },
		DeleteFunc: func(any) { seen = append(seen, "delete") },
	}}
	f.OnAdd(node("1", internal("10.0.0.1")), true)
	f.OnUpdate(node("1", internal("10.0.0.1")), node("2", internal("10.0.0.1"), host)) // a status update
	f.OnUpdate(node("2", internal("10.0.0.1")), node("2", internal("10.0.0.1")))       // a resync
	f.OnUpdate(node("2", internal("10.0.0.1")), node("3", internal("10.0.0.2")))       // a new address
	f.OnDelete(cache.DeletedFinalStateUnknown{Key: "n", Obj: node("3")})
	wanted = false
	f.OnAdd(node("4", internal("10.0.0.4")), false)
	f.OnUpdate(node("4", internal("10.0.0.4")), node("5", internal("10.0.0.5")))
	f.OnDelete(node("5"))
	if got := strings.Join(seen, ","); got != "add,update,delete" {
		t.Errorf("passed %s, want add,update,delete", got)
	}
}

func TestAccessConditions(t *testing.T) {
	status := func(a nfsAccess) *operatorv1.OperatorStatus {
		s := &operatorv1.OperatorStatus{Conditions: []operatorv1.OperatorCondition{{Type: ConditionOpenNFSAccess, Status: operatorv1.ConditionTrue}}}
		for _, update := range accessConditions(a) {
			if err := update(s); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	s := status(nfsAccess{})
	if v1helpers.FindOperatorCondition(s.Conditions, ConditionOpenNFSAccess) != nil {
		t.Errorf("OpenNFSAccess stays with no open class: %+v", s.Conditions)
	}
	if c := v1helpers.FindOperatorCondition(s.Conditions, ConditionProgressing); c == nil || c.Status != operatorv1.ConditionFalse {
		t.Errorf("Progressing %+v, want False", c)
	}
	s = status(nfsAccess{open: []string{"csi-manila-a", "csi-manila-b"}, held: []string{"csi-manila-c"}})
	if c := v1helpers.FindOperatorCondition(s.Conditions, ConditionOpenNFSAccess); c == nil || c.Reason != "OpenToAnyHost" ||
		!strings.Contains(c.Message, "csi-manila-a, csi-manila-b") || !strings.Contains(c.Message, "machineNetwork") {
		t.Errorf("OpenNFSAccess %+v", c)
	}
	if c := v1helpers.FindOperatorCondition(s.Conditions, ConditionProgressing); c == nil || c.Status != operatorv1.ConditionTrue ||
		c.Reason != "WaitingForMachineNetwork" || !strings.Contains(c.Message, "csi-manila-c") || !strings.Contains(c.Message, "cluster-config-v1") {
		t.Errorf("Progressing %+v", c)
	}
	for _, c := range s.Conditions {
		if strings.HasSuffix(c.Type, "Degraded") {
			t.Errorf("access findings set %s", c.Type)
		}
	}
}

func TestAccessEvents(t *testing.T) {
	r := &machinenetwork.Resolution{CIDRs: []string{"10.0.0.5/32"}, From: machinenetwork.FromNodes, Fallback: "ConfigMap kube-system/cluster-config-v1 key install-config: no networking section; using the nodes' InternalIP addresses instead"}
	got := map[string]event{}
	for _, e := range accessEvents(nfsAccess{resolution: r, open: []string{"csi-manila-a"}}) {
		got[e.reason] = e
	}
	if e := got["MachineNetworkFallback"]; !e.warning || !strings.Contains(e.message, "no networking section") {
		t.Errorf("fallback event %+v", e)
	}
	if e := got["MachineNetworkResolved"]; e.warning || !strings.Contains(e.message, "10.0.0.5/32 (from the nodes' InternalIP addresses)") {
		t.Errorf("resolved event %+v", e)
	}
	if e := got["StorageClassOpenToAnyHost"]; !e.warning || !strings.Contains(e.message, "csi-manila-a") {
		t.Errorf("open event %+v", e)
	}
	if len(accessEvents(nfsAccess{})) != 0 {
		t.Error("events without findings")
	}
}
