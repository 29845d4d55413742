package manifests

import (
	"github.com/manila-csi/manila-csi-driver-operator/manifests/rbaccheck"
	"regexp"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
)

func mustFiles(t *testing.T) []File {
	t.Helper()
	fs, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		t.Fatal("no manifests")
	}
	return fs
}

func convert[T any](t *testing.T, u *unstructured.Unstructured, into *T) *T {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return into
}

var fileName = regexp.MustCompile(`^0000_50_manila-csi-driver-operator_[0-9]{2}_[a-z_]+\.yaml$`)

// The CVO applies files in name order and includes an object only with the release annotations.
func TestCVOShape(t *testing.T) {
	for _, f := range mustFiles(t) {
		if !fileName.MatchString(f.Name) {
			t.Errorf("%s: want 0000_50_manila-csi-driver-operator_NN_<what>.yaml", f.Name)
		}
		for _, o := range f.Objects {
			a := o.GetAnnotations()
			for _, key := range []string{"include.release.openshift.io/self-managed-high-availability",
				"include.release.openshift.io/single-node-developer"} {
				if a[key] != "true" {
					t.Errorf("%s: %s %s lacks %s: \"true\"", f.Name, o.GetKind(), o.GetName(), key)
				}
			}
			if a["capability.openshift.io/name"] != "Storage" {
				t.Errorf("%s: %s %s lacks capability.openshift.io/name: Storage", f.Name, o.GetKind(), o.GetName())
			}
		}
	}
}

type roleRules = rbaccheck.Role

func rbacObjects(t *testing.T, objs []*unstructured.Unstructured) []roleRules {
	t.Helper()
	roles, err := rbaccheck.Roles(objs)
	if err != nil {
		t.Fatal(err)
	}
	return roles
}

// operatorRoles returns the roles bound to the operator's ServiceAccount (not, e.g., the one that lets
// prometheus-k8s discover the metrics Service).
func operatorRoles(t *testing.T) []roleRules {
	objs, err := Objects()
	if err != nil {
		t.Fatal(err)
	}
	roles, err := rbaccheck.BoundTo(objs, "openshift-cluster-csi-drivers", "manila-csi-driver-operator")
	if err != nil {
		t.Fatal(err)
	}
	return roles
}

// Least privilege: no wildcard, no cluster-wide Secret access, escalate and bind only by name.
func TestRBACLeastPrivilege(t *testing.T) {
	roles := operatorRoles(t)
	if len(roles) < 3 {
		t.Fatalf("found %d roles in the manifests", len(roles))
	}
	for _, problem := range rbaccheck.LeastPrivilege(roles, nil) {
		t.Error(problem)
	}
}

// Every rule carries a comment line naming the code that needs it.
func TestRBACRulesAreExplained(t *testing.T) {
	data, err := files.ReadFile(Prefix + "02_rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lines, rules := rbaccheck.Unexplained(string(data))
	if rules == 0 {
		t.Error("02_rbac.yaml: no rules")
	}
	for _, l := range lines {
		t.Errorf("02_rbac.yaml line %d: rule without a comment above it", l)
	}
}

// Kubernetes lets the operator create its operand's roles only when it holds what they grant; the
// integration tests prove it on a real kube-apiserver, this finds a gap without one.
func TestOperatorHoldsWhatOperandRolesGrant(t *testing.T) {
	var operand []*unstructured.Unstructured
	for _, name := range assets.StaticResources() {
		data, err := assets.Vars{}.Render(name)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &u.Object); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		operand = append(operand, u)
	}
	held := operatorRoles(t)
	operandRoles := rbacObjects(t, operand)
	if len(operandRoles) < 4 { // controller (cluster and namespace), node, prometheus
		t.Fatalf("found %d operand roles", len(operandRoles))
	}
	for _, missing := range rbaccheck.NotHeld(held, operandRoles) {
		t.Errorf("%s that the operator does not hold", missing)
	}
}

// The Deployment can start with a read-only root: a writable emptyDir at TMPDIR, where controllercmd
// writes its serving certificate; the CVO injects the proxy; probes, requests and POD_NAME are set.
func TestDeploymentCanStart(t *testing.T) {
	d := OperatorDeployment(t)
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	if d.Annotations["config.openshift.io/inject-proxy"] != c.Name {
		t.Errorf("inject-proxy annotation %q, want the container %q", d.Annotations["config.openshift.io/inject-proxy"], c.Name)
	}
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
		t.Errorf("want readOnlyRootFilesystem: true")
	}
	tmp := EnvValue(c, "TMPDIR")
	if tmp == "" {
		t.Fatalf("TMPDIR is not set")
	}
	mounted := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.MountPath == tmp && !m.ReadOnly && slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
			return v.Name == m.Name && v.EmptyDir != nil
		})
	})
	if !mounted {
		t.Errorf("TMPDIR %s is not a writable emptyDir mount", tmp)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil {
		t.Errorf("want HTTP liveness and readiness probes")
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
		t.Errorf("want CPU and memory requests")
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == "POD_NAME" && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.name"
	}) {
		t.Errorf("want POD_NAME from metadata.name")
	}
	// library-go's controllercmd recovers panics unless this says crash (docs/reliability.md).
	if v := EnvValue(c, "OPENSHIFT_ON_PANIC"); v != "crash" {
		t.Errorf("OPENSHIFT_ON_PANIC %q, want crash", v)
	}
	if spec.ServiceAccountName != "manila-csi-driver-operator" {
		t.Errorf("serviceAccountName %q", spec.ServiceAccountName)
	}
}

// OperatorDeployment returns the operator's Deployment from the manifests.
func OperatorDeployment(t testing.TB) *appsv1.Deployment {
	t.Helper()
	d, err := Deployment()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
