package assets

import (
	"slices"
	"strings"
	"testing"

	"github.com/openshift/library-go/pkg/operator/resource/resourceread"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/exportlocation"
)

func decode[T any](t *testing.T, name string) *T {
	t.Helper()
	obj := new(T)
	if err := yaml.UnmarshalStrict(render(t, name), obj); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return obj
}

func containerNames(spec corev1.PodSpec) []string {
	var names []string
	for _, c := range spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// checkPodSpec asserts that mounts reference declared volumes and that every volume is mounted.
func checkPodSpec(t *testing.T, spec corev1.PodSpec) {
	t.Helper()
	declared := map[string]bool{}
	for _, v := range spec.Volumes {
		declared[v.Name] = false
	}
	for _, c := range spec.Containers {
		if c.Image == "" || c.TerminationMessagePolicy != corev1.TerminationMessageFallbackToLogsOnError {
			t.Errorf("container %s: image %q, terminationMessagePolicy %q", c.Name, c.Image, c.TerminationMessagePolicy)
		}
		for _, m := range c.VolumeMounts {
			if _, ok := declared[m.Name]; !ok {
				t.Errorf("container %s mounts undeclared volume %s", c.Name, m.Name)
			}
			declared[m.Name] = true
		}
	}
	for v, used := range declared {
		if !used {
			t.Errorf("volume %s is never mounted", v)
		}
	}
}

func TestWorkloads(t *testing.T) {
	dep := decode[appsv1.Deployment](t, ControllerDeployment)
	nodeDS := decode[appsv1.DaemonSet](t, NodeDaemonSet)
	nfsDS := decode[appsv1.DaemonSet](t, NFSNodeDaemonSet)
	tests := []struct {
		name       string
		selector   map[string]string
		podLabels  map[string]string
		spec       corev1.PodSpec
		sa         string
		containers []string
	}{
		{ControllerDeployment, dep.Spec.Selector.MatchLabels, dep.Spec.Template.Labels, dep.Spec.Template.Spec,
			"manila-csi-driver-controller-sa",
			[]string{"csi-driver", "csi-driver-nfs", "csi-provisioner", "provisioner-kube-rbac-proxy", "csi-resizer",
				"resizer-kube-rbac-proxy", "csi-snapshotter", "snapshotter-kube-rbac-proxy", "csi-liveness-probe"}},
		{NodeDaemonSet, nodeDS.Spec.Selector.MatchLabels, nodeDS.Spec.Template.Labels, nodeDS.Spec.Template.Spec,
			"manila-csi-driver-node-sa", []string{"csi-driver", "csi-node-driver-registrar", "csi-liveness-probe"}},
		{NFSNodeDaemonSet, nfsDS.Spec.Selector.MatchLabels, nfsDS.Spec.Template.Labels, nfsDS.Spec.Template.Spec,
			"manila-csi-driver-node-sa", []string{"csi-driver"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := containerNames(tc.spec); !slices.Equal(got, tc.containers) {
				t.Errorf("containers = %v, want %v", got, tc.containers)
			}
			if tc.spec.ServiceAccountName != tc.sa {
				t.Errorf("serviceAccountName = %q, want %q", tc.spec.ServiceAccountName, tc.sa)
			}
			if len(tc.selector) == 0 || !labels.SelectorFromSet(tc.selector).Matches(labels.Set(tc.podLabels)) {
				t.Errorf("selector %v does not match pod labels %v", tc.selector, tc.podLabels)
			}
			checkPodSpec(t, tc.spec)
		})
	}
	if img := dep.Spec.Template.Spec.Containers[1].Image; img != testVars.Images["NFS_DRIVER_IMAGE"] {
		t.Errorf("controller csi-driver-nfs image = %q", img)
	}
	if img := nfsDS.Spec.Template.Spec.Containers[0].Image; img != testVars.Images["NFS_DRIVER_IMAGE"] {
		t.Errorf("NFS node csi-driver image = %q", img)
	}
}

// TestCrossReferences checks the names that tie the assets together: each controller's metrics
// chain (ServiceMonitor -> Service -> the controller's pods and ports, with the serving certificate the
// Service has service-ca issue and the controller mounts), the NFS controller's PDB, and that the NFS
// and the CephFS controllers' metrics share no port.
func TestCrossReferences(t *testing.T) {
	pdb := decode[policyv1.PodDisruptionBudget](t, ControllerPDB)
	if !labels.SelectorFromSet(pdb.Spec.Selector.MatchLabels).Matches(labels.Set(decode[appsv1.Deployment](t, ControllerDeployment).Spec.Template.Labels)) {
		t.Errorf("PDB selector %v does not match controller pods", pdb.Spec.Selector.MatchLabels)
	}
	portOwner := map[string]string{}
	for _, chain := range []struct{ deployment, service, monitor string }{
		{ControllerDeployment, MetricsService, ServiceMonitor},
		{CephFSControllerDeployment, CephFSMetricsService, CephFSServiceMonitor},
	} {
		t.Run(chain.deployment, func(t *testing.T) {
			metricsChain(t, chain.deployment, chain.service, chain.monitor, portOwner)
		})
	}
}

// metricsChain checks one controller's metrics chain, and records in portOwner the ports its
// kube-rbac-proxies listen on and proxy to, failing on one another controller holds.
func metricsChain(t *testing.T, deployment, service, monitor string, portOwner map[string]string) {
	dep := decode[appsv1.Deployment](t, deployment)
	svc := decode[corev1.Service](t, service)
	podLabels := labels.Set(dep.Spec.Template.Labels)

	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Errorf("Service selector %v does not match controller pods %v", svc.Spec.Selector, podLabels)
	}
	ports := map[string]int32{}
	for _, c := range dep.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		if !strings.HasSuffix(c.Name, "-kube-rbac-proxy") {
			continue
		}
		for _, a := range c.Args {
			for _, flag := range []string{"--secure-listen-address=0.0.0.0:", "--upstream=http://127.0.0.1:"} {
				if port, ok := strings.CutPrefix(a, flag); ok {
					port = strings.TrimSuffix(port, "/")
					if owner, taken := portOwner[port]; taken && owner != deployment {
						t.Errorf("%s container %s uses port %s, as %s does", deployment, c.Name, port, owner)
					}
					portOwner[port] = deployment
				}
			}
		}
	}
	if len(svc.Spec.Ports) == 0 {
		t.Fatalf("Service %s has no ports", svc.Name)
	}
	for _, p := range svc.Spec.Ports {
		if ports[p.TargetPort.StrVal] != p.Port {
			t.Errorf("Service port %s targets %q, container port %d", p.Name, p.TargetPort.String(), ports[p.TargetPort.StrVal])
		}
	}
	secret := svc.Annotations["service.beta.openshift.io/serving-cert-secret-name"]
	if !slices.ContainsFunc(dep.Spec.Template.Spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == secret
	}) {
		t.Errorf("controller does not mount serving cert secret %q", secret)
	}

	var sm struct {
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			Endpoints []struct {
				Port      string `json:"port"`
				TLSConfig struct {
					ServerName string `json:"serverName"`
				} `json:"tlsConfig"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(render(t, monitor), &sm); err != nil {
		t.Fatal(err)
	}
	if !labels.SelectorFromSet(sm.Spec.Selector.MatchLabels).Matches(labels.Set(svc.Labels)) {
		t.Errorf("ServiceMonitor selector %v does not match Service labels %v", sm.Spec.Selector.MatchLabels, svc.Labels)
	}
	if len(sm.Spec.Endpoints) != len(svc.Spec.Ports) {
		t.Errorf("ServiceMonitor has %d endpoints, Service %d ports", len(sm.Spec.Endpoints), len(svc.Spec.Ports))
	}
	for i, ep := range sm.Spec.Endpoints {
		if i < len(svc.Spec.Ports) && ep.Port != svc.Spec.Ports[i].Name {
			t.Errorf("ServiceMonitor endpoint %d port %q, Service port %q", i, ep.Port, svc.Spec.Ports[i].Name)
		}
		if want := svc.Name + "." + svc.Namespace + ".svc"; ep.TLSConfig.ServerName != want {
			t.Errorf("ServiceMonitor endpoint %s serverName %q, want %q", ep.Port, ep.TLSConfig.ServerName, want)
		}
	}
}

// TestBindings checks that every binding refers to a role and service accounts the assets define.
func TestBindings(t *testing.T) {
	roles := map[string]bool{}
	accounts := map[string]bool{"openshift-monitoring/prometheus-k8s": true}
	read := make([]runtime.Object, len(Names()))
	for i, name := range Names() {
		obj, err := resourceread.ReadGenericWithUnstructured(render(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		read[i] = obj
		switch o := obj.(type) {
		case *rbacv1.ClusterRole:
			roles["ClusterRole/"+o.Name] = true
		case *rbacv1.Role:
			roles["Role/"+o.Name] = true
		case *corev1.ServiceAccount:
			accounts[o.Namespace+"/"+o.Name] = true
		}
	}
	bindings := 0
	for i, name := range Names() {
		var b struct {
			RoleRef  rbacv1.RoleRef
			Subjects []rbacv1.Subject
		}
		switch o := read[i].(type) {
		case *rbacv1.RoleBinding:
			b.RoleRef, b.Subjects = o.RoleRef, o.Subjects
		case *rbacv1.ClusterRoleBinding:
			b.RoleRef, b.Subjects = o.RoleRef, o.Subjects
		default:
			continue
		}
		bindings++
		if !roles[b.RoleRef.Kind+"/"+b.RoleRef.Name] {
			t.Errorf("%s: roleRef %s/%s is not defined", name, b.RoleRef.Kind, b.RoleRef.Name)
		}
		if len(b.Subjects) == 0 {
			t.Errorf("%s has no subjects", name)
		}
		for _, s := range b.Subjects {
			if s.Kind != "ServiceAccount" || !accounts[s.Namespace+"/"+s.Name] {
				t.Errorf("%s: subject %s %s/%s is not defined", name, s.Kind, s.Namespace, s.Name)
			}
		}
	}
	if bindings == 0 {
		t.Error("no bindings found")
	}
}

// The node plugin's driver reads the runtime config where the RuntimeConfigController's ConfigMap is
// mounted, and starts without it (the driver's default) until the ConfigMap is first written.
func TestNodeRuntimeConfig(t *testing.T) {
	ds := decode[appsv1.DaemonSet](t, NodeDaemonSet)
	spec := ds.Spec.Template.Spec
	var volume *corev1.Volume
	for i, v := range spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == exportlocation.ConfigMapName {
			volume = &spec.Volumes[i]
		}
	}
	if volume == nil || volume.ConfigMap.Optional == nil || !*volume.ConfigMap.Optional || len(volume.ConfigMap.Items) > 0 {
		t.Fatalf("no optional volume of ConfigMap %s with every key: %+v", exportlocation.ConfigMapName, volume)
	}
	for _, c := range spec.Containers {
		if c.Name != "csi-driver" {
			continue
		}
		if !slices.Contains(c.Args, "--runtime-config-file="+exportlocation.MountDir+"/"+exportlocation.Key) {
			t.Errorf("csi-driver args %v lack --runtime-config-file=%s/%s", c.Args, exportlocation.MountDir, exportlocation.Key)
		}
		// A subPath mount would never see an update of the ConfigMap.
		if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
			return m.Name == volume.Name && m.MountPath == exportlocation.MountDir && m.SubPath == "" && m.ReadOnly
		}) {
			t.Errorf("csi-driver does not mount volume %s read-only at %s: %+v", volume.Name, exportlocation.MountDir, c.VolumeMounts)
		}
		return
	}
	t.Fatal("no csi-driver container")
}
