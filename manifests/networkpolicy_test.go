package manifests

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
)

// cluster-storage-operator's NetworkPolicies in openshift-cluster-csi-drivers admit its operators'
// pods by these labels (its manifests/09_network-policy-*.yaml); its operator metrics range is
// 8443-8445.
var csoPolicyLabels = []string{
	"openshift.storage.network-policy.api-server", "openshift.storage.network-policy.dns",
	"openshift.storage.network-policy.all-egress", "openshift.storage.network-policy.operator-metrics-range",
}

func TestOperatorPodCarriesCSOsNetworkPolicyLabels(t *testing.T) {
	d, err := Deployment()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range csoPolicyLabels {
		if d.Spec.Template.Labels[l] != "allow" {
			t.Errorf("operator pod label %s=%q, cluster-storage-operator's policies need allow", l, d.Spec.Template.Labels[l])
		}
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			if p.ContainerPort < 8443 || p.ContainerPort > 8445 {
				t.Errorf("container %s port %d is outside cluster-storage-operator's operator metrics range 8443-8445", c.Name, p.ContainerPort)
			}
		}
	}
}

// The operand namespace's policies admit every port the controller's pods listen on, and the
// traffic they start: the API server, DNS, and OpenStack (any TCP port).
func TestOperandNetworkPoliciesAdmitItsTraffic(t *testing.T) {
	vars := assets.Vars{Images: map[string]string{"NFS_DRIVER_IMAGE": "quay.io/test/nfs:1"}, FSGroupPolicy: "None"}
	var policies []networkingv1.NetworkPolicy
	for _, name := range []string{assets.NetworkPolicyDefaultDeny, assets.NetworkPolicyAPIServer, assets.NetworkPolicyDNS,
		assets.NetworkPolicyAllEgress, assets.NetworkPolicyMetrics, assets.NetworkPolicyProbes} {
		var p networkingv1.NetworkPolicy
		decode(t, vars, name, &p)
		policies = append(policies, p)
	}
	var d appsv1.Deployment
	decode(t, vars, assets.ControllerDeployment, &d)
	pod := d.Spec.Template
	if len(policiesFor(policies, pod.Labels, networkingv1.PolicyTypeIngress)) == 0 {
		t.Fatal("no policy selects the controller pods: nothing is denied, the test would prove nothing")
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if !admits(policies, pod.Labels, networkingv1.PolicyTypeIngress, p.Protocol, p.ContainerPort, p.Name) {
				t.Errorf("container %s port %s/%d is not admitted by any ingress policy", c.Name, p.Name, p.ContainerPort)
			}
		}
	}
	for _, out := range []struct {
		what     string
		protocol corev1.Protocol
		port     int32
	}{
		{"the API server", corev1.ProtocolTCP, 6443},
		{"DNS over UDP", corev1.ProtocolUDP, 5353},
		{"DNS over TCP", corev1.ProtocolTCP, 5353},
		{"Keystone", corev1.ProtocolTCP, 5000},
		{"Manila", corev1.ProtocolTCP, 8786},
		{"an HTTPS endpoint or proxy", corev1.ProtocolTCP, 443},
	} {
		if !admits(policies, pod.Labels, networkingv1.PolicyTypeEgress, out.protocol, out.port, "") {
			t.Errorf("the controller pods cannot reach %s (%s %d)", out.what, out.protocol, out.port)
		}
	}
	if admits(policies, map[string]string{"app": "someone-else"}, networkingv1.PolicyTypeIngress, corev1.ProtocolTCP, 9212, "") {
		t.Error("a pod without the operand's labels is admitted on a metrics port: the check cannot fail")
	}
}

func decode(t *testing.T, vars assets.Vars, name string, into any) {
	t.Helper()
	data, err := vars.Render(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// policiesFor are the policies of the given type that select a pod with these labels.
func policiesFor(policies []networkingv1.NetworkPolicy, podLabels map[string]string, typ networkingv1.PolicyType) []networkingv1.NetworkPolicy {
	var out []networkingv1.NetworkPolicy
	for _, p := range policies {
		sel, err := metav1.LabelSelectorAsSelector(&p.Spec.PodSelector)
		if err != nil || !sel.Matches(labels.Set(podLabels)) {
			continue
		}
		for _, pt := range p.Spec.PolicyTypes {
			if pt == typ {
				out = append(out, p)
			}
		}
	}
	return out
}

// admits is whether a policy of type typ selecting the pod lets the port through (from or to any
// peer the rule names: the peers are the policies' business, the ports are the pods').
func admits(policies []networkingv1.NetworkPolicy, podLabels map[string]string, typ networkingv1.PolicyType, protocol corev1.Protocol, port int32, portName string) bool {
	for _, p := range policiesFor(policies, podLabels, typ) {
		var rulePorts [][]networkingv1.NetworkPolicyPort
		if typ == networkingv1.PolicyTypeIngress {
			for _, r := range p.Spec.Ingress {
				rulePorts = append(rulePorts, r.Ports)
			}
		} else {
			for _, r := range p.Spec.Egress {
				rulePorts = append(rulePorts, r.Ports)
			}
		}
		for _, ports := range rulePorts {
			if len(ports) == 0 {
				return true // a rule without ports admits every port
			}
			for _, pp := range ports {
				if portMatches(pp, protocol, port, portName) {
					return true
				}
			}
		}
	}
	return false
}

func portMatches(pp networkingv1.NetworkPolicyPort, protocol corev1.Protocol, port int32, name string) bool {
	proto := corev1.ProtocolTCP
	if pp.Protocol != nil {
		proto = *pp.Protocol
	}
	if proto != protocol {
		return false
	}
	switch {
	case pp.Port == nil:
		return true
	case pp.Port.Type == intstr.String:
		return name != "" && pp.Port.StrVal == name
	case pp.EndPort != nil:
		return port >= pp.Port.IntVal && port <= *pp.EndPort
	default:
		return port == pp.Port.IntVal
	}
}
