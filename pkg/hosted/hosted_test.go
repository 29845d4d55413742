package hosted

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// Every asset is placed, so a new asset cannot slip into the hosted flavour unplaced.
func TestEveryAssetIsPlaced(t *testing.T) {
	for _, name := range assets.Names() {
		if _, err := AssetClusters(name); err != nil {
			t.Error(err)
		}
	}
	if _, err := AssetClusters("nope.yaml"); err == nil {
		t.Error("an unknown asset is placed")
	}
}

func TestAssetClusters(t *testing.T) {
	for _, tc := range []struct {
		asset string
		want  []Cluster
	}{
		{assets.ControllerDeployment, []Cluster{Management}},
		{assets.ControllerPDB, []Cluster{Management}},
		{assets.MetricsService, []Cluster{Management}},
		{assets.ControllerServiceAccount, []Cluster{Management, Guest}},
		{assets.TrustedCABundle, []Cluster{Management, Guest}},
		{assets.NodeDaemonSet, []Cluster{Guest}},
		{assets.NFSNodeDaemonSet, []Cluster{Guest}},
		{assets.CSIDriver, []Cluster{Guest}},
		{assets.VolumeSnapshotClass, []Cluster{Guest}},
		{assets.ControllerRole, []Cluster{Guest}},
		{assets.Namespace, []Cluster{Guest}},
		{assets.ServiceMonitor, nil},
		{assets.PrometheusRole, nil},
	} {
		got, err := AssetClusters(tc.asset)
		if err != nil {
			t.Errorf("%s: %v", tc.asset, err)
			continue
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.asset, got, tc.want)
		}
	}
}

// The guest gets no Secret but the driver secret: the operator's own clouds.yaml stays on the
// management cluster.
func TestGuestSecrets(t *testing.T) {
	for _, name := range AssetsOn(Guest) {
		data, err := assets.Vars{}.Render(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "\nkind: Secret") {
			t.Errorf("asset %s is a Secret applied to the guest", name)
		}
	}
}

func TestReplicas(t *testing.T) {
	for _, tc := range []struct {
		policy AvailabilityPolicy
		want   int32
		err    bool
	}{{SingleReplica, 1, false}, {HighlyAvailable, 2, false}, {"", 0, true}, {"Tripled", 0, true}} {
		got, err := Replicas(tc.policy)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("%q: %d, %v; want %d, error %v", tc.policy, got, err, tc.want, tc.err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		cp  ControlPlane
		err string
	}{
		{ControlPlane{Namespace: "clusters-a", Availability: HighlyAvailable}, ""},
		{ControlPlane{Availability: HighlyAvailable}, "empty"},
		{ControlPlane{Namespace: names.OperandNamespace, Availability: HighlyAvailable}, "namespace of the guest"},
		{ControlPlane{Namespace: names.OperatorNamespace, Availability: SingleReplica}, "namespace of the guest"},
		{ControlPlane{Namespace: "clusters-a"}, "controllerAvailabilityPolicy"},
	} {
		err := tc.cp.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want %q", tc.cp, err, tc.err)
		}
	}
}

// standaloneDeployment is the controller asset as the operator reads it.
func standaloneDeployment(t *testing.T) *appsv1.Deployment {
	t.Helper()
	data, err := assets.Vars{}.Render(assets.ControllerDeployment)
	if err != nil {
		t.Fatal(err)
	}
	return resourceread.ReadDeploymentV1OrDie(data)
}

func container(t *testing.T, d *appsv1.Deployment, name string) corev1.Container {
	t.Helper()
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %s", name)
	return corev1.Container{}
}

func TestControllerDeployment(t *testing.T) {
	for _, tc := range []struct {
		cp                 ControlPlane
		replicas           int32
		surge, unavailable int
	}{{ControlPlane{Namespace: "clusters-a", Availability: SingleReplica}, 1, 1, 0}, {ControlPlane{Namespace: "clusters-b", Availability: HighlyAvailable}, 2, 0, 1}} {
		t.Run(tc.cp.Namespace, func(t *testing.T) {
			before := standaloneDeployment(t)
			d := before.DeepCopy()
			if err := tc.cp.ControllerDeployment(d); err != nil {
				t.Fatal(err)
			}
			if d.Namespace != tc.cp.Namespace || *d.Spec.Replicas != tc.replicas {
				t.Errorf("namespace %s replicas %d", d.Namespace, *d.Spec.Replicas)
			}
			// A Ready replica throughout a rollout: one replica surges, two lose one at a time.
			if ru := d.Spec.Strategy.RollingUpdate; d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil ||
				ru.MaxSurge.IntValue() != tc.surge || ru.MaxUnavailable.IntValue() != tc.unavailable {
				t.Errorf("strategy %+v, want maxSurge %d maxUnavailable %d", d.Spec.Strategy, tc.surge, tc.unavailable)
			}
			spec := d.Spec.Template.Spec
			if d.Spec.Template.Labels[LabelHostedControlPlane] != tc.cp.Namespace {
				t.Errorf("pod labels %v", d.Spec.Template.Labels)
			}
			if !equality.Semantic.DeepEqual(d.Spec.Selector, before.Spec.Selector) {
				t.Errorf("the selector changed: the PDB and the metrics Service select the standalone labels")
			}
			if len(spec.NodeSelector) != 0 || spec.PriorityClassName != PriorityClass {
				t.Errorf("nodeSelector %v priorityClassName %q", spec.NodeSelector, spec.PriorityClassName)
			}
			for _, tol := range spec.Tolerations {
				if strings.HasPrefix(tol.Key, "node-role.kubernetes.io/") {
					t.Errorf("toleration of the management cluster's masters: %+v", tol)
				}
			}
			tolerated := sets.New[string]()
			for _, tol := range spec.Tolerations {
				tolerated.Insert(tol.Key + "=" + tol.Value)
			}
			if !tolerated.HasAll(LabelControlPlaneNode+"=true", LabelClusterNode+"="+tc.cp.Namespace) {
				t.Errorf("tolerations %v", sets.List(tolerated))
			}
			na := spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution
			if len(na) != 2 || na[1].Preference.MatchExpressions[0].Values[0] != tc.cp.Namespace {
				t.Errorf("node affinity %+v", na)
			}
			if spec.Affinity.PodAntiAffinity == nil {
				t.Errorf("no anti-affinity between the replicas")
			}
			if !slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
				return v.Name == GuestKubeconfigVolume && v.Secret != nil && v.Secret.SecretName == GuestKubeconfigSecret
			}) {
				t.Errorf("no volume of Secret %s", GuestKubeconfigSecret)
			}
			if got := d.Annotations[proxyAnnotation]; got != "csi-driver" {
				t.Errorf("inject-proxy %q: the sidecars must reach the guest's API server without a proxy", got)
			}
			for _, c := range spec.Containers {
				guest := slices.Contains(GuestSidecars, c.Name)
				hasKubeconfig := slices.Contains(c.Args, "--kubeconfig=/etc/hosted-kubernetes/kubeconfig")
				hasLease := slices.Contains(c.Args, "--leader-election-namespace="+names.OperandNamespace)
				mounted := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
					return m.Name == GuestKubeconfigVolume && m.MountPath == GuestKubeconfigDir && m.ReadOnly
				})
				if guest != hasKubeconfig || guest != hasLease || guest != mounted {
					t.Errorf("container %s: guest sidecar %v, --kubeconfig %v, lease namespace %v, mounted %v", c.Name, guest, hasKubeconfig, hasLease, mounted)
				}
			}
			// The driver talks to OpenStack only: nothing of it changes.
			if !equality.Semantic.DeepEqual(container(t, d, "csi-driver"), container(t, before, "csi-driver")) {
				t.Errorf("the driver container changed")
			}
			again := d.DeepCopy()
			if err := tc.cp.ControllerDeployment(again); err != nil {
				t.Fatal(err)
			}
			if !equality.Semantic.DeepEqual(again, d) {
				t.Errorf("a second transform changes the Deployment")
			}
		})
	}
}

func TestControllerDeploymentRefuses(t *testing.T) {
	for name, change := range map[string]func(*appsv1.Deployment){
		"another namespace": func(d *appsv1.Deployment) { d.Namespace = "elsewhere" },
		"no resizer": func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = slices.DeleteFunc(d.Spec.Template.Spec.Containers, func(c corev1.Container) bool { return c.Name == "csi-resizer" })
		},
	} {
		d := standaloneDeployment(t)
		change(d)
		if err := (ControlPlane{Namespace: "clusters-a", Availability: SingleReplica}).ControllerDeployment(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := (ControlPlane{Namespace: "clusters-a"}).ControllerDeployment(standaloneDeployment(t)); err == nil {
		t.Errorf("no availability policy: no error")
	}
}

func TestCheckConfig(t *testing.T) {
	for _, tc := range []struct {
		extraMounts string
		err         bool
	}{
		{"", false},
		{"- propagation: [openstack-manila-csi-nodeplugin]\n  volumes: [{name: a, configMap: {name: a}}]\n  mounts: [{name: a, mountPath: /a}]", false},
		{"- propagation: [Node]\n  volumes: [{name: a, configMap: {name: a}}]\n  mounts: [{name: a, mountPath: /a}]", false},
		{"- propagation: [Controller]\n  volumes: [{name: a, configMap: {name: a}}]\n  mounts: [{name: a, mountPath: /a}]", true},
		{"- propagation: [openstack-manila-csi-controllerplugin]\n  volumes: [{name: a, configMap: {name: a}}]\n  mounts: [{name: a, mountPath: /a}]", true},
		{"- propagation: [All]\n  volumes: [{name: a, hostPath: {path: /}}]\n  mounts: [{name: a, mountPath: /a}]", true},
	} {
		cfg := &operatorconfig.Config{}
		if tc.extraMounts != "" {
			if err := yaml.Unmarshal([]byte(tc.extraMounts), &cfg.ExtraMounts); err != nil {
				t.Fatal(err)
			}
		}
		if err := CheckConfig(cfg); (err != nil) != tc.err {
			t.Errorf("%q: %v, want error %v", tc.extraMounts, err, tc.err)
		}
	}
	if err := CheckConfig(nil); err != nil {
		t.Errorf("no config: %v", err)
	}
	cephfs := &operatorconfig.Config{CephFS: operatorconfig.CephFS{Enabled: true, Image: "quay.io/cephcsi/cephcsi:v3.18.0"}}
	if err := CheckConfig(cephfs); err == nil || !strings.Contains(err.Error(), "field cephfs.enabled") {
		t.Errorf("cephfs.enabled hosted: %v, want a refusal naming the field", err)
	}
}

func TestControlPlaneImages(t *testing.T) {
	env := map[string]string{"DRIVER_CONTROL_PLANE_IMAGE": "quay.io/cp/driver:1", "DRIVER_IMAGE": "quay.io/guest/driver:1"}
	images := ControlPlaneImages(func(k string) string { return env[k] })
	spec := &corev1.PodSpec{Containers: []corev1.Container{
		{Name: "csi-driver", Image: "quay.io/guest/driver:1"}, {Name: "csi-liveness-probe", Image: "quay.io/guest/probe:1"}, {Name: "csi-provisioner", Image: "p"},
	}}
	SetControlPlaneImages(spec, images)
	got := []string{spec.Containers[0].Image, spec.Containers[1].Image, spec.Containers[2].Image}
	if want := []string{"quay.io/cp/driver:1", "quay.io/guest/probe:1", "p"}; !slices.Equal(got, want) {
		t.Errorf("images %v, want %v (only the control-plane image that is set replaces)", got, want)
	}
}
