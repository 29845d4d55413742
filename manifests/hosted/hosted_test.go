package hosted

import (
	"github.com/manila-csi/manila-csi-driver-operator/manifests/rbaccheck"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	pkghosted "github.com/manila-csi/manila-csi-driver-operator/pkg/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

const hcp = "clusters-test"

func convert[T any](t *testing.T, u *unstructured.Unstructured, into *T) *T {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return into
}

func mustObjects(t *testing.T) (mgmt, guest []*unstructured.Unstructured) {
	t.Helper()
	mgmt, err := Management(hcp)
	if err != nil {
		t.Fatal(err)
	}
	if guest, err = Guest(); err != nil {
		t.Fatal(err)
	}
	if len(mgmt) == 0 || len(guest) == 0 {
		t.Fatalf("%d management and %d guest objects", len(mgmt), len(guest))
	}
	return mgmt, guest
}

type roleRules = rbaccheck.Role

// boundRoles returns the roles bound to the ServiceAccount namespace/name among objs.
func boundRoles(t *testing.T, objs []*unstructured.Unstructured, namespace, name string) []roleRules {
	t.Helper()
	roles, err := rbaccheck.BoundTo(objs, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	return roles
}

func rbacObjects(t *testing.T, objs []*unstructured.Unstructured) []roleRules {
	t.Helper()
	roles, err := rbaccheck.Roles(objs)
	if err != nil {
		t.Fatal(err)
	}
	return roles
}

// The management side is confined to the HCP namespace; every object is the operator's own.
func TestManagementStaysInItsNamespace(t *testing.T) {
	mgmt, _ := mustObjects(t)
	for _, o := range mgmt {
		if o.GetNamespace() != hcp {
			t.Errorf("%s %s: namespace %q, want %s", o.GetKind(), o.GetName(), o.GetNamespace(), hcp)
		}
		if strings.Contains(o.GetKind(), "Cluster") {
			t.Errorf("%s %s is cluster-scoped", o.GetKind(), o.GetName())
		}
	}
	if _, err := Management(""); err == nil {
		t.Error("no namespace: no error")
	}
	if strings.Contains(management, "openshift-cluster-csi-drivers") || strings.Contains(management, names.OperandNamespace) {
		t.Error("management.yaml names a namespace of the guest")
	}
}

// Least privilege on both sides: no wildcard, no cluster-wide Secret access, escalate and bind only by
// name; on the management cluster, Secrets only by name (the HCP namespace holds the guest's admin
// kubeconfig); in the guest, no Secret but in the operand namespace.
func TestRBACLeastPrivilege(t *testing.T) {
	mgmt, guest := mustObjects(t)
	for side, roles := range map[string][]roleRules{
		"management": boundRoles(t, mgmt, hcp, names.OperatorName),
		"guest":      boundRoles(t, guest, names.OperatorNamespace, names.OperatorName),
	} {
		if len(roles) == 0 {
			t.Fatalf("%s: no role bound to the operator", side)
		}
		problems := rbaccheck.LeastPrivilege(roles, func(rule rbaccheck.Rule) []string {
			secrets := rule.Grants("", "secrets")
			switch {
			case secrets && side == "management" && len(rule.ResourceNames) == 0:
				return []string{rule.Where() + ": Secrets of the HCP namespace without resourceNames"}
			case secrets && side == "guest" && rule.Role.Namespace != names.OperandNamespace:
				return []string{rule.Where() + ": Secrets outside the operand namespace"}
			}
			return nil
		})
		for _, problem := range problems {
			t.Errorf("%s: %s", side, problem)
		}
	}
}

// Every rule carries a comment line naming the code that needs it.
func TestRBACRulesAreExplained(t *testing.T) {
	for file, data := range map[string]string{"management.yaml": management, "guest.yaml": guest} {
		lines, rules := rbaccheck.Unexplained(data)
		if rules == 0 {
			t.Errorf("%s: no rules", file)
		}
		for _, l := range lines {
			t.Errorf("%s line %d: rule without a comment above it", file, l)
		}
	}
}

// In the guest the operator creates the operand's guest-side roles, so it holds what they grant
// (Kubernetes' escalation check); the management side has no operand role to create.
func TestOperatorHoldsWhatGuestOperandRolesGrant(t *testing.T) {
	_, guest := mustObjects(t)
	held := boundRoles(t, guest, names.OperatorNamespace, names.OperatorName)
	var operand []*unstructured.Unstructured
	for _, cluster := range []pkghosted.Cluster{pkghosted.Guest, pkghosted.Management} {
		for _, name := range pkghosted.AssetsOn(cluster) {
			data, err := assets.Vars{}.Render(name)
			if err != nil {
				t.Fatal(err)
			}
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal(data, &u.Object); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if cluster == pkghosted.Management && strings.HasSuffix(u.GetKind(), "Role") {
				t.Errorf("asset %s, a %s, goes to the management cluster, where the operator holds no operand rights", name, u.GetKind())
			}
			if cluster == pkghosted.Guest {
				operand = append(operand, u)
			}
		}
	}
	roles := rbacObjects(t, operand)
	if len(roles) < 3 { // controller (cluster and namespace), node
		t.Fatalf("found %d guest operand roles", len(roles))
	}
	for _, missing := range rbaccheck.NotHeld(held, roles) {
		t.Errorf("%s that the operator does not hold in the guest", missing)
	}
}

// The hosted operator Deployment runs the standalone one's images and process settings, with the
// guest kubeconfig mounted and named, placed as a hosted control plane's pod.
func TestDeployment(t *testing.T) {
	mgmt, _ := mustObjects(t)
	var d *appsv1.Deployment
	for _, o := range mgmt {
		if o.GetKind() == "Deployment" {
			d = convert(t, o, &appsv1.Deployment{})
		}
	}
	if d == nil {
		t.Fatal("no Deployment")
	}
	standalone, err := manifests.Deployment()
	if err != nil {
		t.Fatal(err)
	}
	c, sc := d.Spec.Template.Spec.Containers[0], standalone.Spec.Template.Spec.Containers[0]
	if c.Image != sc.Image {
		t.Errorf("image %s, standalone %s", c.Image, sc.Image)
	}
	for _, e := range sc.Env {
		if e.Value != "" && manifests.EnvValue(c, e.Name) != e.Value {
			t.Errorf("env %s=%q, standalone %q", e.Name, manifests.EnvValue(c, e.Name), e.Value)
		}
	}
	if !slices.Contains(c.Args, "--namespace="+hcp) || !slices.Contains(c.Args, "--guest-kubeconfig=/etc/guest-kubeconfig/kubeconfig") {
		t.Errorf("args %v", c.Args)
	}
	if !slices.ContainsFunc(d.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == pkghosted.GuestKubeconfigSecret
	}) || !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/etc/guest-kubeconfig" && m.ReadOnly }) {
		t.Errorf("the guest kubeconfig Secret %s is not mounted read-only at /etc/guest-kubeconfig", pkghosted.GuestKubeconfigSecret)
	}
	spec := d.Spec.Template.Spec
	if spec.ServiceAccountName != names.OperatorName || spec.PriorityClassName != pkghosted.PriorityClass ||
		d.Spec.Template.Labels[pkghosted.LabelHostedControlPlane] != hcp || len(spec.NodeSelector) != 0 {
		t.Errorf("serviceAccountName %q priorityClassName %q labels %v nodeSelector %v", spec.ServiceAccountName,
			spec.PriorityClassName, d.Spec.Template.Labels, spec.NodeSelector)
	}
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("want readOnlyRootFilesystem: true")
	}
}

// The operator pod carries the labels HyperShift's and cluster-storage-operator's network policies
// select (as CSO's hosted Deployment: need-management-kas-access for the management API, the
// openshift.storage.network-policy ones for the API servers, DNS, egress and metrics).
func TestNetworkPolicyLabels(t *testing.T) {
	mgmt, _ := mustObjects(t)
	for _, o := range mgmt {
		if o.GetKind() != "Deployment" {
			continue
		}
		labels := convert(t, o, &appsv1.Deployment{}).Spec.Template.Labels
		for k, v := range map[string]string{
			"app": names.OperatorName, "hypershift.openshift.io/need-management-kas-access": "true",
			"openshift.storage.network-policy.api-server": "allow", "openshift.storage.network-policy.dns": "allow",
			"openshift.storage.network-policy.all-egress": "allow", "openshift.storage.network-policy.operator-metrics-range": "allow",
		} {
			if labels[k] != v {
				t.Errorf("pod label %s=%q, want %q", k, labels[k], v)
			}
		}
		return
	}
	t.Fatal("no Deployment")
}
