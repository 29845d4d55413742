package manifests

import (
	"github.com/manila-csi/manila-csi-driver-operator/manifests/rbaccheck"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

const servingCertAnnotation = "service.beta.openshift.io/serving-cert-secret-name"

func objectOf(t *testing.T, kind string) *unstructured.Unstructured {
	t.Helper()
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	var found []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d objects of kind %s in the manifests, want 1", len(found), kind)
	}
	return found[0]
}

// The chain Prometheus scrapes through: ServiceMonitor -> Service -> the Deployment's pod and port,
// served with the certificate service-ca issues for the Service, which the Deployment mounts and
// names in its args; the ServiceMonitor verifies it for the Service's DNS name with a bearer token.
func TestMetricsEndpointWiring(t *testing.T) {
	svc := convert(t, objectOf(t, "Service"), &corev1.Service{})
	d := OperatorDeployment(t)
	pod := d.Spec.Template
	c := pod.Spec.Containers[0]

	if svc.Namespace != d.Namespace {
		t.Errorf("Service in %s, Deployment in %s", svc.Namespace, d.Namespace)
	}
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("Service selector %v does not select the operator's pods %v", svc.Spec.Selector, pod.Labels)
	}
	if len(svc.Spec.Ports) != 1 {
		t.Fatalf("Service ports %v", svc.Spec.Ports)
	}
	port := svc.Spec.Ports[0]
	if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == port.TargetPort.String() }) {
		t.Errorf("Service targetPort %s is no container port of %v", port.TargetPort.String(), c.Ports)
	}
	listen := ""
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--listen="); ok {
			listen = v
		}
	}
	if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool {
		return p.Name == port.TargetPort.String() && strings.HasSuffix(listen, ":"+strconv.Itoa(int(p.ContainerPort)))
	}) {
		t.Errorf("--listen=%s is not the port the Service targets", listen)
	}

	secret := svc.Annotations[servingCertAnnotation]
	if secret == "" {
		t.Fatalf("Service %s lacks %s", svc.Name, servingCertAnnotation)
	}
	var dir string
	for _, v := range pod.Spec.Volumes {
		if v.Secret == nil || v.Secret.SecretName != secret {
			continue
		}
		if v.Secret.Optional != nil && *v.Secret.Optional {
			t.Errorf("the serving-cert volume is optional: without it the endpoint would serve a self-signed certificate")
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				dir = m.MountPath
			}
		}
	}
	if dir == "" {
		t.Fatalf("the Deployment does not mount Secret %s", secret)
	}
	for _, want := range []string{"--tls-cert-file=" + dir + "/tls.crt", "--tls-private-key-file=" + dir + "/tls.key"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("the Deployment's args lack %s", want)
		}
	}

	sm := objectOf(t, "ServiceMonitor")
	if sm.GetNamespace() != svc.Namespace {
		t.Errorf("ServiceMonitor in %s", sm.GetNamespace())
	}
	match, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	if len(match) == 0 || !labels.SelectorFromSet(match).Matches(labels.Set(svc.Labels)) {
		t.Errorf("ServiceMonitor selector %v does not select Service labels %v", match, svc.Labels)
	}
	endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if len(endpoints) != 1 {
		t.Fatalf("ServiceMonitor endpoints %v", endpoints)
	}
	e := endpoints[0].(map[string]interface{})
	serverName, _, _ := unstructured.NestedString(e, "tlsConfig", "serverName")
	for field, want := range map[string]string{
		"port": port.Name, "scheme": "https", "path": "/metrics",
		"bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
	} {
		if got, _, _ := unstructured.NestedString(e, field); got != want {
			t.Errorf("ServiceMonitor endpoint %s = %q, want %q", field, got, want)
		}
	}
	if want := svc.Name + "." + svc.Namespace + ".svc"; serverName != want {
		t.Errorf("ServiceMonitor serverName %q, want %q (the name in the service-ca certificate)", serverName, want)
	}
}

// prometheus-k8s may discover the Service's endpoints and pods in the operator namespace; the operator
// may ask Kubernetes to authenticate and authorize the scrapes.
func TestMetricsRBAC(t *testing.T) {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	svcNamespace := objectOf(t, "Service").GetNamespace()
	prometheus := rbacv1.Subject{Kind: "ServiceAccount", Name: "prometheus-k8s", Namespace: "openshift-monitoring"}
	var discover bool
	for _, o := range objs {
		if o.GetKind() != "RoleBinding" || o.GetNamespace() != svcNamespace {
			continue
		}
		b := convert(t, o, &rbacv1.RoleBinding{})
		if !slices.Contains(b.Subjects, prometheus) {
			continue
		}
		for _, r := range rbacObjects(t, objs) {
			if r.Kind != b.RoleRef.Kind || r.Name != b.RoleRef.Name || r.Namespace != svcNamespace {
				continue
			}
			discover = true
			for _, res := range []string{"services", "endpoints", "pods"} {
				for _, verb := range []string{"get", "list", "watch"} {
					if !rbaccheck.Holds([]roleRules{r}, svcNamespace, "", res, verb, nil) {
						t.Errorf("prometheus-k8s may not %s %s in %s", verb, res, svcNamespace)
					}
				}
			}
		}
	}
	if !discover {
		t.Errorf("no Role bound to prometheus-k8s in %s", svcNamespace)
	}
	operator := operatorRoles(t)
	for group, res := range map[string]string{"authentication.k8s.io": "tokenreviews", "authorization.k8s.io": "subjectaccessreviews"} {
		if !rbaccheck.Holds(operator, "", group, res, "create", nil) {
			t.Errorf("the operator may not create %s, which the metrics endpoint's delegated auth needs", res)
		}
	}
}
