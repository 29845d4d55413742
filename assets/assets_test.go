package assets

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	"k8s.io/apimachinery/pkg/api/meta"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
)

const operandNamespace = "openshift-manila-csi-driver"

var clusterScoped = map[string]bool{
	"Namespace": true, "CSIDriver": true, "ClusterRole": true, "ClusterRoleBinding": true, "VolumeSnapshotClass": true,
}

// Placeholders library-go replaces, and those pkg/hooks fills after the decode (the values read from
// the cluster); anything else left after Render is a typo.
var libraryGoPlaceholders = []string{
	"${DRIVER_IMAGE}", "${PROVISIONER_IMAGE}", "${RESIZER_IMAGE}", "${SNAPSHOTTER_IMAGE}",
	"${NODE_DRIVER_REGISTRAR_IMAGE}", "${LIVENESS_PROBE_IMAGE}", "${KUBE_RBAC_PROXY_IMAGE}", "${LOG_LEVEL}",
	"${OBSERVED_TLS_CIPHER_SUITES}", "${OBSERVED_TLS_MIN_VERSION}", "${INFRASTRUCTURE_NAME}", "${LEADER_ELECTION_LEASE_DURATION}",
	"${LEADER_ELECTION_RENEW_DEADLINE}", "${LEADER_ELECTION_RETRY_PERIOD}",
	// Filled after the decode from the operator config's cephfs.image (pkg/hooks CephCSIImage).
	CephCSIImagePlaceholder,
}

// library-go replaces these as text before decoding; no asset may hold them, since their values come
// from the cluster (hosted: the guest) and would be read as structure (pkg/hooks ClusterValues).
var textReplacedClusterValues = []string{"${CLUSTER_ID}", "${TLS_CIPHER_SUITES}", "${TLS_MIN_VERSION}"}

func TestNoAssetTakesClusterValuesAsText(t *testing.T) {
	for _, name := range Names() {
		raw, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range textReplacedClusterValues {
			if bytes.Contains(raw, []byte(p)) {
				t.Errorf("%s holds %s, which library-go fills as text of the manifest", name, p)
			}
		}
	}
}

var placeholderRE = regexp.MustCompile(`\$\{[A-Z0-9_]+\}`)

// Typed targets for strict decoding: unknown or misspelled fields fail the test.
var typed = map[string]func() any{
	"Namespace": func() any { return &corev1.Namespace{} }, "ServiceAccount": func() any { return &corev1.ServiceAccount{} },
	"Service": func() any { return &corev1.Service{} }, "ConfigMap": func() any { return &corev1.ConfigMap{} },
	"ClusterRole": func() any { return &rbacv1.ClusterRole{} }, "ClusterRoleBinding": func() any { return &rbacv1.ClusterRoleBinding{} },
	"Role": func() any { return &rbacv1.Role{} }, "RoleBinding": func() any { return &rbacv1.RoleBinding{} },
	"PodDisruptionBudget": func() any { return &policyv1.PodDisruptionBudget{} },
	"CSIDriver":           func() any { return &storagev1.CSIDriver{} },
	"Deployment":          func() any { return &appsv1.Deployment{} }, "DaemonSet": func() any { return &appsv1.DaemonSet{} },
}

func render(t *testing.T, name string) []byte {
	t.Helper()
	data, err := testVars.Render(name)
	if err != nil {
		t.Fatalf("Render(%q): %v", name, err)
	}
	return data
}

// documents splits a YAML stream into its non-empty documents.
func documents(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var docs [][]byte
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
}

func TestNamesMatchEmbeddedFiles(t *testing.T) {
	embedded, err := fs.Glob(files, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Clone(Names())
	slices.Sort(names)
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("Names() has duplicates: %v", Names())
	}
	if !slices.Equal(names, embedded) {
		t.Errorf("Names() = %v, embedded files = %v", names, embedded)
	}
}

func TestStaticResources(t *testing.T) {
	static := StaticResources()
	if static[0] != Namespace {
		t.Errorf("first static resource = %s, want %s", static[0], Namespace)
	}
	for _, other := range []string{CSIDriver, ControllerDeployment, NodeDaemonSet, NFSNodeDaemonSet, VolumeSnapshotClass, ServiceMonitor} {
		if slices.Contains(static, other) {
			t.Errorf("StaticResources() contains %s, which another controller applies", other)
		}
	}
}

func TestAssets(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			data := render(t, name)
			docs := documents(t, data)
			if len(docs) != 1 {
				t.Fatalf("%d YAML documents, want 1", len(docs))
			}
			// As the static-resource controllers read it: typed for known kinds, unstructured otherwise.
			read, err := resourceread.ReadGenericWithUnstructured(docs[0])
			if err != nil {
				t.Fatal(err)
			}
			gvk := read.GetObjectKind().GroupVersionKind()
			m, err := meta.Accessor(read)
			if err != nil {
				t.Fatal(err)
			}
			obj := struct{ Kind, Namespace string }{gvk.Kind, m.GetNamespace()}
			if gvk.Version == "" || gvk.Kind == "" || m.GetName() == "" {
				t.Errorf("apiVersion=%q kind=%q metadata.name=%q: all must be set", gvk.GroupVersion(), gvk.Kind, m.GetName())
			}
			switch {
			case clusterScoped[obj.Kind] && obj.Namespace != "":
				t.Errorf("cluster-scoped %s has namespace %q", obj.Kind, obj.Namespace)
			case !clusterScoped[obj.Kind] && obj.Namespace != operandNamespace:
				t.Errorf("%s namespace = %q, want %q", obj.Kind, obj.Namespace, operandNamespace)
			}
			for _, p := range placeholderRE.FindAllString(string(data), -1) {
				if !slices.Contains(libraryGoPlaceholders, p) {
					t.Errorf("placeholder %s left after Render", p)
				}
			}
			if newObj, ok := typed[obj.Kind]; ok {
				if err := yaml.UnmarshalStrict(docs[0], newObj()); err != nil {
					t.Errorf("strict decode as %s: %v", obj.Kind, err)
				}
			}
		})
	}
}

func TestRenderUnknownName(t *testing.T) {
	for _, name := range []string{"", "nope.yaml", "../go.mod", "assets.go", "testdata/golden/namespace.yaml"} {
		if _, err := testVars.Render(name); err == nil {
			t.Errorf("Render(%q) succeeded, want an error", name)
		}
		if _, err := testVars.AssetFunc()(name); err == nil {
			t.Errorf("AssetFunc()(%q) succeeded, want an error", name)
		}
	}
}

func TestRenderPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		want []string // present after Render
		keep []string // library-go placeholders that must survive
		gone []string // operator placeholders that must be gone
	}{
		{ControllerDeployment, []string{"image: quay.io/test/nfs:1"},
			[]string{"${DRIVER_IMAGE}", "${PROVISIONER_IMAGE}", "${RESIZER_IMAGE}", "${SNAPSHOTTER_IMAGE}", "${LIVENESS_PROBE_IMAGE}",
				"${KUBE_RBAC_PROXY_IMAGE}", "${LOG_LEVEL}", "${OBSERVED_TLS_CIPHER_SUITES}", "${OBSERVED_TLS_MIN_VERSION}", "${INFRASTRUCTURE_NAME}",
				"${LEADER_ELECTION_LEASE_DURATION}", "${LEADER_ELECTION_RENEW_DEADLINE}", "${LEADER_ELECTION_RETRY_PERIOD}"},
			[]string{"${NFS_DRIVER_IMAGE}"}},
		{NodeDaemonSet, nil, []string{"${DRIVER_IMAGE}", "${NODE_DRIVER_REGISTRAR_IMAGE}", "${LIVENESS_PROBE_IMAGE}", "${LOG_LEVEL}"}, nil},
		{NFSNodeDaemonSet, []string{"image: quay.io/test/nfs:1"}, []string{"${LOG_LEVEL}"}, []string{"${NFS_DRIVER_IMAGE}"}},
		{CSIDriver, []string{"fsGroupPolicy: None"}, nil, []string{"${FSGROUP_POLICY}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := files.ReadFile(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			out := string(render(t, tc.name))
			for _, s := range tc.gone {
				if !bytes.Contains(raw, []byte(s)) {
					t.Errorf("source asset lacks %s; the test is stale", s)
				}
				if bytes.Contains([]byte(out), []byte(s)) {
					t.Errorf("%s left after Render", s)
				}
			}
			for _, s := range append(tc.want, tc.keep...) {
				if !bytes.Contains([]byte(out), []byte(s)) {
					t.Errorf("rendered %s lacks %q", tc.name, s)
				}
			}
		})
	}
	for _, name := range Names() {
		out := render(t, name)
		if bytes.Contains(out, []byte("${NFS_DRIVER_IMAGE}")) || bytes.Contains(out, []byte("${FSGROUP_POLICY}")) {
			t.Errorf("%s keeps an operator placeholder after Render", name)
		}
	}
}

// With every image given, no image placeholder is left for library-go to fill from its environment.
func TestRenderReplacesEveryImage(t *testing.T) {
	images := map[string]string{}
	for _, env := range []string{"DRIVER_IMAGE", "NFS_DRIVER_IMAGE", "PROVISIONER_IMAGE", "RESIZER_IMAGE", "SNAPSHOTTER_IMAGE",
		"NODE_DRIVER_REGISTRAR_IMAGE", "LIVENESS_PROBE_IMAGE", "KUBE_RBAC_PROXY_IMAGE"} {
		images[env] = "example.com/" + strings.ToLower(env) + ":1"
	}
	vars := Vars{Images: images, FSGroupPolicy: "File"}
	for _, name := range Names() {
		out, err := vars.Render(name)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`\$\{[A-Z_]*IMAGE\}`).Find(out); m != nil && string(m) != CephCSIImagePlaceholder {
			t.Errorf("%s keeps %s", name, m)
		}
	}
}

// The names read from the assets are the objects' own.
func TestObjectName(t *testing.T) {
	for asset, want := range map[string]string{
		ControllerDeployment: "openstack-manila-csi-controllerplugin",
		NodeDaemonSet:        "openstack-manila-csi-nodeplugin",
		CSIDriver:            "manila.csi.openstack.org",
	} {
		if got := ObjectName(asset); got != want {
			t.Errorf("ObjectName(%s) = %q, want %q", asset, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ObjectName of an unknown asset did not panic")
		}
	}()
	ObjectName("no-such.yaml")
}

func TestServingCertSecret(t *testing.T) {
	for asset, want := range map[string]string{
		MetricsService:       "manila-csi-driver-controller-metrics-serving-cert",
		CephFSMetricsService: "manila-csi-driver-cephfs-controller-metrics-serving-cert",
	} {
		if got := ServingCertSecret(asset); got != want {
			t.Errorf("ServingCertSecret(%s) = %q, want %q", asset, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("ServingCertSecret of a Service without the annotation did not panic")
		}
	}()
	ServingCertSecret(ControllerDeployment)
}
