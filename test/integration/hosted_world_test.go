package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// hostedProbeRBAC lets the probe identity read ConfigMaps of the operator namespace and the
// Infrastructure, and nothing else: enough to tell its token from an admin's, with both kinds of
// binding the hosted flavour's RBAC will have.
const hostedProbeRBAC = `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: hosted-world-probe
  namespace: openshift-cluster-csi-drivers
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: hosted-world-probe
  namespace: openshift-cluster-csi-drivers
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: hosted-world-probe
subjects:
- kind: ServiceAccount
  name: hosted-world-probe
  namespace: openshift-cluster-csi-drivers
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: hosted-world-probe
rules:
- apiGroups: [config.openshift.io]
  resources: [infrastructures]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: hosted-world-probe
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: hosted-world-probe
subjects:
- kind: ServiceAccount
  name: hosted-world-probe
  namespace: openshift-cluster-csi-drivers
`

// TestHostedWorldHasTwoClusters checks the hosted world itself: two clusters that share nothing, a
// guest identity reachable through the management cluster's Secret as the operator's pod would
// mount it, a guest apiserver that comes back with its data after an outage, and a rotated Secret
// whose new content works.
func TestHostedWorldHasTwoClusters(t *testing.T) {
	hw := world.StartHosted(t, framework.HostedOptions{Guest: framework.GuestOptions{InfrastructureName: "manila-guest"}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*framework.DefaultTimeout)
	defer cancel()

	// Each cluster is itself: its own Infrastructure, the guest's with an external control plane.
	mgmtInfra, err := hw.ConfigV1.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	guestInfra, err := hw.Guest.ConfigV1.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := guestInfra.Status.InfrastructureName; got != "manila-guest" || got == mgmtInfra.Status.InfrastructureName {
		t.Errorf("guest infrastructureName %q (management %q), want manila-guest", got, mgmtInfra.Status.InfrastructureName)
	}
	if guestInfra.Status.ControlPlaneTopology != configv1.ExternalTopologyMode || guestInfra.Status.PlatformStatus.Type != configv1.OpenStackPlatformType {
		t.Errorf("guest Infrastructure: topology %q platform %q, want External on OpenStack",
			guestInfra.Status.ControlPlaneTopology, guestInfra.Status.PlatformStatus.Type)
	}
	if guestInfra.Status.APIServerURL != hw.Guest.Config.Host || hw.Guest.Config.Host == hw.Config.Host {
		t.Errorf("guest apiServerURL %q, guest host %q, management host %q: want the guest's own", guestInfra.Status.APIServerURL, hw.Guest.Config.Host, hw.Config.Host)
	}
	for _, ns := range []string{names.OperatorNamespace, names.OperandNamespace} {
		if _, err := hw.Guest.Kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("guest namespace %s: %v", ns, err)
		}
	}

	// An object made in each cluster is only in that cluster.
	probe := func(cp *framework.ControlPlane, side string) {
		t.Helper()
		_, err := cp.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "hosted-world-probe-" + side}, Data: map[string]string{"side": side}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating the %s probe: %v", side, err)
		}
	}
	probe(hw.ControlPlane, "management")
	t.Cleanup(func() {
		err := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(context.Background(), "hosted-world-probe-management", metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting the management probe: %v", err)
		}
	})
	probe(hw.Guest, "guest")
	probes := func(cp *framework.ControlPlane) map[string]bool {
		t.Helper()
		list, err := cp.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, cm := range list.Items {
			out[cm.Name] = true
		}
		return out
	}
	mgmt, guest := probes(hw.ControlPlane), probes(hw.Guest)
	if !mgmt["hosted-world-probe-management"] || mgmt["hosted-world-probe-guest"] {
		t.Errorf("management ConfigMaps %v: want the management probe and not the guest's", mgmt)
	}
	if !guest["hosted-world-probe-guest"] || guest["hosted-world-probe-management"] {
		t.Errorf("guest ConfigMaps %v: want the guest probe and not the management's", guest)
	}

	// The guest identity, stored as the management Secret the operator's pod mounts, reaches the
	// guest with its RBAC and no more.
	kc, err := hw.Guest.CreateServiceAccount(ctx, names.OperatorNamespace, "hosted-world-probe", []byte(hostedProbeRBAC))
	if err != nil {
		t.Fatal(err)
	}
	if err := hw.StoreGuestKubeconfig(ctx, kc); err != nil {
		t.Fatal(err)
	}
	stored, err := hw.GuestKubeconfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client := guestClientFrom(t, stored)
	if err := getGuestProbe(ctx, client); err != nil {
		t.Fatalf("the guest kubeconfig from Secret %s/%s: %v", hw.HCPNamespace, framework.GuestKubeconfigSecret, err)
	}
	if _, err := client.CoreV1().Secrets(names.OperatorNamespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing Secrets as the probe: %v, want forbidden (the kubeconfig must carry the ServiceAccount, not an admin)", err)
	}
	// Each cluster keeps its own audit log: the probe's requests are in the guest's only.
	probeUser := "system:serviceaccount:" + names.OperatorNamespace + ":hosted-world-probe"
	if hw.Guest.AuditLogPath() == hw.AuditLogPath() {
		t.Fatalf("guest and management share the audit log %s", hw.AuditLogPath())
	}
	framework.Eventually(t, framework.DefaultTimeout, "the probe's requests in the guest's audit log", func(context.Context) error {
		log, err := os.ReadFile(hw.Guest.AuditLogPath())
		if err != nil {
			return err
		}
		if !strings.Contains(string(log), probeUser) {
			return fmt.Errorf("no request of %s in %s", probeUser, hw.Guest.AuditLogPath())
		}
		return nil
	})
	if log, err := os.ReadFile(hw.AuditLogPath()); err != nil {
		t.Error(err)
	} else if strings.Contains(string(log), probeUser) {
		t.Errorf("the management audit log has requests of the guest's %s", probeUser)
	}

	// The guest apiserver down: requests fail; up again on the same port: the same kubeconfig works
	// and the guest's objects are still there; the management cluster never noticed.
	if err := hw.Guest.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if err := getGuestProbe(ctx, client); err == nil {
		t.Error("the guest answered with its apiserver stopped")
	}
	if _, err := hw.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Get(ctx, "hosted-world-probe-management", metav1.GetOptions{}); err != nil {
		t.Errorf("the management cluster with the guest down: %v", err)
	}
	if err := hw.Guest.StartAPIServer(); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the guest probe through the same kubeconfig after the restart", func(ctx context.Context) error {
		return getGuestProbe(ctx, client)
	})

	// A rotated Secret: new content, and it works.
	rotated, err := hw.RotateGuestKubeconfig(ctx, names.OperatorNamespace, "hosted-world-probe")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(rotated, stored) {
		t.Fatal("the rotated guest kubeconfig is the old one")
	}
	after, err := hw.GuestKubeconfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, rotated) {
		t.Fatal("Secret content after rotation is not what RotateGuestKubeconfig returned")
	}
	if err := getGuestProbe(ctx, guestClientFrom(t, after)); err != nil {
		t.Fatalf("the rotated guest kubeconfig: %v", err)
	}
}

// guestClientFrom builds a client from kubeconfig content, as a process given the mounted file
// would; it gives up on a request after a few seconds, so a stopped apiserver fails fast.
func guestClientFrom(t *testing.T, kubeconfig []byte) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatalf("the guest kubeconfig: %v", err)
	}
	cfg.Timeout = 5 * time.Second
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func getGuestProbe(ctx context.Context, client kubernetes.Interface) error {
	cm, err := client.CoreV1().ConfigMaps(names.OperatorNamespace).Get(ctx, "hosted-world-probe-guest", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if cm.Data["side"] != "guest" {
		return fmt.Errorf("the guest probe says %q, want guest", cm.Data["side"])
	}
	return nil
}
