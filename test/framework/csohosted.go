package framework

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	manifestshosted "github.com/manila-csi/manila-csi-driver-operator/manifests/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// StartCSOHosted runs the real cluster-storage-operator of main in its HyperShift mode until the test
// ends: as HyperShift's control-plane operator deploys it in the HCP namespace of the management
// cluster (its assets/cluster-storage-operator/deployment.yaml: `start -v=2
// --guest-kubeconfig=/etc/guest-kubeconfig/kubeconfig`, no --config), as ServiceAccount
// cluster-storage-operator there with HyperShift's Role for it (csoHostedRBAC) and the guest's admin
// kubeconfig (Secret service-network-admin-kubeconfig is an admin's for CSO; the operators CSO runs get
// the operator's guest identity in that Secret, see prepareForCSO). CSO then applies the Manila
// operator's Deployment, Role and ServiceAccount in the HCP namespace and the guest's ClusterCSIDriver,
// namespace and RBAC, and reports through the guest's Storage CR and ClusterOperator storage.
//
// Before CSO starts, the world gets what HyperShift makes for it (prepareForCSO: the
// HostedControlPlane, the cloud's Secrets and ConfigMap in the HCP namespace, the guest kubeconfig
// Secret; in the guest, the cloud credentials its hosted-cluster-config-operator writes) and the guest
// what its cluster-version, config and cloud-credential operators give CSO (prepareCSO). When the test ends, CSO stops, the management cluster is put
// back as before and the ReplicaSets and Pods made since in the HCP namespace are deleted; the guest
// goes with StartHosted's cleanup.
func (hw *HostedWorld) StartCSOHosted(t testing.TB, opts CSOOptions) *CSO {
	t.Helper()
	if opts.Generation != "" && opts.Generation != CSOMain {
		t.Fatalf("hosted CSO runs as of main only (HyperShift's Manila support is 4.18+), not %s", opts.Generation)
	}
	bin := filepath.Join(CSOBinDir(), "cluster-storage-operator")
	if err := requireFiles("cluster-storage-operator (hack/cso.sh build "+CSOBinDir()+")", bin, filepath.Join(CSOBinDir(), "crds")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	before, err := hw.World.takeSnapshot(ctx)
	if err != nil {
		t.Fatalf("recording the management cluster before CSO: %v", err)
	}
	workloads, err := hw.hcpWorkloadUIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		if err := hw.deleteHCPWorkloadsSince(ctx, workloads); err != nil {
			t.Errorf("deleting the ReplicaSets and Pods made under hosted CSO: %v", err)
		}
		if err := hw.World.restoreSnapshot(ctx, before); err != nil {
			t.Errorf("putting the management cluster back after hosted CSO: %v", err)
		}
	})
	c := &CSO{Generation: CSOMain, Version: csoVersions[CSOMain], w: hw.World, hosted: hw, bin: bin, dir: t.TempDir()}
	c.LogPath = filepath.Join(c.dir, "cluster-storage-operator.log")
	c.env = c.releaseEnv(opts)
	hw.prepareForCSO(t)
	if err := hw.ApplyDocuments(ctx, []byte(csoHostedRBAC(hw.HCPNamespace))); err != nil {
		t.Fatalf("CSO's ServiceAccount and Role in %s: %v", hw.HCPNamespace, err)
	}
	// The guest's cloud credentials: HyperShift's hosted-cluster-config-operator writes
	// openshift-cluster-csi-drivers/manila-cloud-credentials from the HCP namespace's, and the answers
	// to CSO's CredentialsRequests (csi-operator's node plugin mounts the operand namespace's) are
	// written from it.
	if err := hw.Guest.WriteSecret(ctx, names.OperatorNamespace, names.CloudCredentialsSecret,
		map[string][]byte{names.CloudsYAMLKey: hw.OpenStack.CloudsYAML()}); err != nil {
		t.Fatalf("the guest's cloud credentials: %v", err)
	}
	guest := &World{ControlPlane: hw.Guest}
	if err := guest.prepareCSO(ctx, c.Version, bin+".manifests", true); err != nil {
		t.Fatalf("preparing the guest for CSO: %v", err)
	}
	if err := c.start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Stop()
		LogOnFailure(t, "hosted cluster-storage-operator log", 60, c.Log())
	})
	return c
}

// csoHostedRBAC is what HyperShift's control-plane operator makes for CSO in the HCP namespace (its
// assets/cluster-storage-operator serviceaccount.yaml, role.yaml and rolebinding.yaml, written here
// from what they say): CSO may manage leases, Deployments, ReplicaSets, PodDisruptionBudgets, the core
// objects of the namespace, Roles and RoleBindings, and read HostedControlPlanes. Whatever a Role CSO
// applies for an operator grants, CSO must hold itself (RBAC refuses an escalation).
func csoHostedRBAC(ns string) string {
	return strings.ReplaceAll(`
apiVersion: v1
kind: ServiceAccount
metadata: {name: cluster-storage-operator, namespace: NS}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cluster-storage-operator, namespace: NS}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: ["*"]
- apiGroups: [apps]
  resources: [deployments, replicasets]
  verbs: ["*"]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: ["*"]
- apiGroups: [""]
  resources: [serviceaccounts, services, configmaps, pods, endpoints, events, secrets]
  verbs: ["*"]
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch, update]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [watch, list, get, create, delete, patch, update]
- apiGroups: [hypershift.openshift.io]
  resources: [hostedcontrolplanes]
  verbs: [watch, list, get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: cluster-storage-operator, namespace: NS}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cluster-storage-operator}
subjects:
- {kind: ServiceAccount, name: cluster-storage-operator, namespace: NS}
`, "NS", ns)
}

// hostedReleaseEnv is what HyperShift's Deployment of CSO adds to a release's environment: the images
// for the management cluster's nodes.
func (c *CSO) hostedReleaseEnv() map[string]string {
	img := func(name string) string { return "registry.test/openshift/" + name + ":" + c.Version }
	return map[string]string{
		"LIVENESS_PROBE_CONTROL_PLANE_IMAGE":          img("csi-livenessprobe-control-plane"),
		"KUBE_RBAC_PROXY_CONTROL_PLANE_IMAGE":         img("kube-rbac-proxy-control-plane"),
		"OPENSTACK_CINDER_DRIVER_CONTROL_PLANE_IMAGE": img("openstack-cinder-csi-driver-control-plane"),
		"MANILA_DRIVER_CONTROL_PLANE_IMAGE":           img("csi-driver-manila-control-plane"),
	}
}

// prepareForCSO makes what HyperShift makes before CSO runs: the HostedControlPlane (an empty spec)
// when the namespace has none; the operator's guest identity, a ServiceAccount of the guest with
// manifests/hosted/guest.yaml's RBAC (HyperShift's is the guest's admin; the test world keeps RBAC
// checked), whom CSO's guest ClusterRoleBinding names too, its kubeconfig in Secret
// service-network-admin-kubeconfig; Secrets manila-cloud-credentials and openstack-cloud-credentials
// in the HCP namespace (keys clouds.yaml and cloud.conf, the world's OpenStack; no CA: it has none)
// and ConfigMap openstack-cloud-config (key cloud.conf).
func (hw *HostedWorld) prepareForCSO(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	hcps, err := hw.Dynamic.Resource(hostedControlPlanes).Namespace(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hcps.Items) == 0 {
		hw.CreateHostedControlPlane(t, map[string]any{})
	}
	guestObjs, err := manifestshosted.Guest()
	if err != nil {
		t.Fatal(err)
	}
	kc, err := hw.Guest.CreateServiceAccount(ctx, names.OperatorNamespace, names.OperatorName, documents(t, guestObjs))
	if err != nil {
		t.Fatalf("the operator's guest identity: %v", err)
	}
	if err := hw.StoreGuestKubeconfig(ctx, kc); err != nil {
		t.Fatal(err)
	}
	clouds := hw.OpenStack.CloudsYAML()
	// HyperShift's cloud.conf for the cloud provider: the cloud of clouds.yaml.
	cloudConf := []byte("[Global]\nuse-clouds = true\nclouds-file = /etc/openstack/secret/clouds.yaml\ncloud = " + names.CloudName + "\n")
	for _, name := range []string{names.CloudCredentialsSecret, "openstack-cloud-credentials"} {
		if err := hw.ControlPlane.WriteSecret(ctx, hw.HCPNamespace, name,
			map[string][]byte{names.CloudsYAMLKey: clouds, "cloud.conf": cloudConf}); err != nil {
			t.Fatalf("Secret %s/%s: %v", hw.HCPNamespace, name, err)
		}
	}
	if err := hw.ControlPlane.WriteConfigMap(ctx, hw.HCPNamespace, names.HostedCloudConfigMap,
		map[string]string{"cloud.conf": string(cloudConf)}); err != nil {
		t.Fatal(err)
	}
}

// hcpWorkloadUIDs are the ReplicaSets and Pods in the HCP namespace now.
func (hw *HostedWorld) hcpWorkloadUIDs(ctx context.Context) (map[types.UID]bool, error) {
	out := map[types.UID]bool{}
	rss, err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, rs := range rss.Items {
		out[rs.UID] = true
	}
	pods, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, p := range pods.Items {
		out[p.UID] = true
	}
	return out, nil
}

// deleteHCPWorkloadsSince deletes the ReplicaSets and Pods (at once) of the HCP namespace that are
// not in before.
func (hw *HostedWorld) deleteHCPWorkloadsSince(ctx context.Context, before map[types.UID]bool) error {
	var errs []string
	rss, err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, rs := range rss.Items {
		if !before[rs.UID] {
			if err := hw.Kube.AppsV1().ReplicaSets(hw.HCPNamespace).Delete(ctx, rs.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	pods, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if !before[p.UID] {
			err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
			if err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err.Error())
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
