package framework

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	manifestshosted "github.com/manila-csi/manila-csi-driver-operator/manifests/hosted"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
)

// HostedOperator is the operator of a hosted world, running in-process as manifests/hosted deploys
// it: as ServiceAccount manila-csi-driver-operator of the HCP namespace with management.yaml's RBAC,
// reaching the guest through the mounted guest kubeconfig file, whose identity has guest.yaml's RBAC.
type HostedOperator struct {
	*RunningOperator
	// PodName is the operator's Pod in the HCP namespace (POD_NAME), made from management.yaml's
	// Deployment template, on which it writes its guest-link condition.
	PodName string
	// KubeconfigPath is the mounted guest kubeconfig file the operator follows.
	KubeconfigPath string
}

// PrepareHostedOperator makes what HyperShift and the guest's cluster operators would have made before
// the operator starts: the management-side ServiceAccount and RBAC, the guest identity with its RBAC
// and Secret service-network-admin-kubeconfig with its kubeconfig (also mounted as a file), the
// guest's ClusterCSIDriver from manifests/, and Secret manila-cloud-credentials in the HCP namespace
// with the world's clouds.yaml.
func (hw *HostedWorld) PrepareHostedOperator(t testing.TB) (mgmtKubeconfig []byte, kubeconfigPath string) {
	t.Helper()
	return hw.prepareHostedOperator(t, nil)
}

// prepareHostedOperator is PrepareHostedOperator with HyperShift's credentials objects written as creds
// says (WriteHyperShiftCredentials) instead of manila-cloud-credentials with the world's clouds.yaml,
// when creds is not nil.
func (hw *HostedWorld) prepareHostedOperator(t testing.TB, creds *HyperShiftCredentials) (mgmtKubeconfig []byte, kubeconfigPath string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	mgmtObjs, err := manifestshosted.Management(hw.HCPNamespace)
	if err != nil {
		t.Fatal(err)
	}
	var mgmtRBAC []*unstructured.Unstructured
	for _, o := range mgmtObjs {
		if o.GetKind() != "Deployment" {
			mgmtRBAC = append(mgmtRBAC, o)
		}
	}
	if mgmtKubeconfig, err = hw.ControlPlane.CreateServiceAccount(ctx, hw.HCPNamespace, names.OperatorName, documents(t, mgmtRBAC)); err != nil {
		t.Fatalf("the operator's management-side identity: %v", err)
	}
	guestObjs, err := manifestshosted.Guest()
	if err != nil {
		t.Fatal(err)
	}
	guestKubeconfig, err := hw.Guest.CreateServiceAccount(ctx, names.OperatorNamespace, names.OperatorName, documents(t, guestObjs))
	if err != nil {
		t.Fatalf("the operator's guest identity: %v", err)
	}
	if err := hw.StoreGuestKubeconfig(ctx, guestKubeconfig); err != nil {
		t.Fatal(err)
	}
	kubeconfigPath = filepath.Join(t.TempDir(), "guest-kubeconfig", GuestKubeconfigKey)
	if err := hw.MountGuestKubeconfig(ctx, kubeconfigPath); err != nil {
		t.Fatal(err)
	}
	standalone, err := manifests.Objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range standalone {
		if o.GetKind() == "ClusterCSIDriver" {
			if err := hw.Guest.ApplyDocuments(ctx, documents(t, []*unstructured.Unstructured{o})); err != nil {
				t.Fatalf("the guest's ClusterCSIDriver: %v", err)
			}
		}
	}
	if creds != nil {
		hw.WriteHyperShiftCredentials(t, *creds)
		return mgmtKubeconfig, kubeconfigPath
	}
	if err := hw.ControlPlane.WriteSecret(ctx, hw.HCPNamespace, names.CloudCredentialsSecret,
		map[string][]byte{names.CloudsYAMLKey: hw.OpenStack.CloudsYAML()}); err != nil {
		t.Fatal(err)
	}
	return mgmtKubeconfig, kubeconfigPath
}

// HyperShiftOpenStackCredentials is the second credentials Secret HyperShift writes in the HCP
// namespace (for the cloud provider and others), beside manila-cloud-credentials.
const HyperShiftOpenStackCredentials = "openstack-cloud-credentials"

// HyperShiftCredentials says how HyperShift writes an OpenStack hosted cluster's credentials and CA in
// the HCP namespace.
//
// By default, as HyperShift main writes them (control-plane-operator's
// hostedcontrolplane/cloud/openstack/providerconfig.go, ReconcileCloudConfigSecret, at 3ee96155):
// Secrets manila-cloud-credentials and openstack-cloud-credentials, each with clouds.yaml (no cacert
// path in it: HyperShift unsets it), cloud.conf and, with a CA, the CA in cacert and, until HyperShift
// drops it ("Remove in 4.20+"), in ca-bundle.pem; ConfigMap openstack-cloud-config with cloud.conf and
// the CA in ca-bundle.pem.
type HyperShiftCredentials struct {
	// CloudsYAML is the clouds.yaml of both Secrets.
	CloudsYAML []byte
	// CAPEM is the OpenStack CA; empty for a cloud of public certificates.
	CAPEM []byte
	// CACertOnly puts the CA only in the Secrets' key cacert: neither in their ca-bundle.pem nor in the
	// ConfigMap. HyperShift once it drops the legacy copies; a test device that the reader of cacert,
	// and no other, finds the CA.
	CACertOnly bool
	// Old is HyperShift before the OCPBUGS-115269 fixes: Secret manila-cloud-credentials with
	// clouds.yaml only, no openstack-cloud-credentials, the CA only in ConfigMap openstack-cloud-config
	// key ca-bundle.pem.
	Old bool
	// OpenStackOnly writes the current shape's openstack-cloud-credentials alone, without
	// manila-cloud-credentials: the name cluster-storage-operator's hosted Deployment mounts, should
	// HyperShift stop writing the Manila-specific copy.
	OpenStackOnly bool
}

// WriteHyperShiftCredentials writes the HCP namespace's credentials Secrets and cloud config ConfigMap
// as c says, deleting the ones c's shape has not, and deletes them all when the test ends (the HCP
// namespace outlives the test).
func (hw *HostedWorld) WriteHyperShiftCredentials(t testing.TB, c HyperShiftCredentials) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	ns := hw.HCPNamespace
	secrets, configMaps := hw.Kube.CoreV1().Secrets(ns), hw.Kube.CoreV1().ConfigMaps(ns)
	t.Cleanup(func() {
		for _, name := range []string{names.CloudCredentialsSecret, HyperShiftOpenStackCredentials} {
			if err := secrets.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting Secret %s/%s: %v", ns, name, err)
			}
		}
		if err := configMaps.Delete(context.Background(), names.HostedCloudConfigMap, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting ConfigMap %s/%s: %v", ns, names.HostedCloudConfigMap, err)
		}
	})
	// getCloudConfig's cloud.conf: the cloud of clouds.yaml, and the CA where HyperShift mounts it.
	cloudConf := "[Global]\nuse-clouds = true\nclouds-file = /etc/openstack/secret/clouds.yaml\ncloud = " + names.CloudName + "\n"
	if len(c.CAPEM) > 0 {
		cloudConf += "ca-file = /etc/pki/ca-trust/extracted/pem/" + names.CABundleKey + "\n"
	}
	cloudConf += "\n[LoadBalancer]\nmax-shared-lb = 1\nmanage-security-groups = true\n\n[Networking]\naddress-sort-order = 10.0.0.0/16\n"
	cm := map[string]string{"cloud.conf": cloudConf}
	if len(c.CAPEM) > 0 && !c.CACertOnly {
		cm[names.CABundleKey] = string(c.CAPEM)
	}
	if c.Old {
		if err := hw.ControlPlane.WriteSecret(ctx, ns, names.CloudCredentialsSecret, map[string][]byte{names.CloudsYAMLKey: c.CloudsYAML}); err != nil {
			t.Fatal(err)
		}
		if err := secrets.Delete(ctx, HyperShiftOpenStackCredentials, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	} else {
		written := []string{names.CloudCredentialsSecret, HyperShiftOpenStackCredentials}
		if c.OpenStackOnly {
			written = written[1:]
			if err := secrets.Delete(ctx, names.CloudCredentialsSecret, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
		for _, name := range written {
			data := map[string][]byte{names.CloudsYAMLKey: c.CloudsYAML, "cloud.conf": []byte(cloudConf)}
			if len(c.CAPEM) > 0 {
				data["cacert"] = c.CAPEM
				if !c.CACertOnly {
					data[names.CABundleKey] = c.CAPEM
				}
			}
			if err := hw.ControlPlane.WriteSecret(ctx, ns, name, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := hw.ControlPlane.WriteConfigMap(ctx, ns, names.HostedCloudConfigMap, cm); err != nil {
		t.Fatal(err)
	}
}

// MountGuestKubeconfig writes the content of Secret service-network-admin-kubeconfig to path as the
// kubelet updates a Secret volume: a complete new file swapped in.
func (hw *HostedWorld) MountGuestKubeconfig(ctx context.Context, path string) error {
	kc, err := hw.GuestKubeconfig(ctx)
	if err != nil {
		return err
	}
	return WriteFileAtomically(path, kc)
}

// WriteFileAtomically replaces path's content at once (a temporary file renamed over it).
func WriteFileAtomically(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// RunHostedOperator prepares the hosted world (PrepareHostedOperator) and runs the operator with opts
// (GuestKubeconfig is set here) until the test ends.
func (hw *HostedWorld) RunHostedOperator(t *testing.T, opts *operator.Options, counter *RequestCounter) *HostedOperator {
	t.Helper()
	mgmtKubeconfig, path := hw.PrepareHostedOperator(t)
	return hw.RunPreparedHostedOperator(t, opts, counter, mgmtKubeconfig, path)
}

// RunHostedOperatorWithCredentials is RunHostedOperator with HyperShift's credentials objects written
// as creds says (WriteHyperShiftCredentials) before the operator starts.
func (hw *HostedWorld) RunHostedOperatorWithCredentials(t *testing.T, opts *operator.Options, counter *RequestCounter, creds HyperShiftCredentials) *HostedOperator {
	t.Helper()
	mgmtKubeconfig, path := hw.prepareHostedOperator(t, &creds)
	return hw.RunPreparedHostedOperator(t, opts, counter, mgmtKubeconfig, path)
}

// RunPreparedHostedOperator runs the operator of a prepared hosted world as the management identity
// of mgmtKubeconfig, following the guest kubeconfig file at path (which need not exist yet).
func (hw *HostedWorld) RunPreparedHostedOperator(t *testing.T, opts *operator.Options, counter *RequestCounter, mgmtKubeconfig []byte, path string) *HostedOperator {
	t.Helper()
	cfg, err := clientcmd.RESTConfigFromKubeConfig(mgmtKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 0, 0
	pod := hw.hostedOperatorPod(t)
	t.Setenv("POD_NAME", pod)
	opts.GuestKubeconfig = path
	return &HostedOperator{RunningOperator: hw.runOperatorAs(t, opts, counter, cfg, hw.HCPNamespace), PodName: pod, KubeconfigPath: path}
}

// HostedOperatorCommandFor prepares the hosted world (PrepareHostedOperator) and returns the command
// of manifests/hosted's operator Deployment as OperatorCommandFor does for the standalone one: its
// Secret volume with the guest kubeconfig written as the kubelet would, --guest-kubeconfig mapped
// to it, --kubeconfig with the HCP namespace's ServiceAccount token, POD_NAME of its pod there.
func (hw *HostedWorld) HostedOperatorCommandFor(t testing.TB, tmpDir string) (OperatorCommand, string) {
	t.Helper()
	mgmtKubeconfig, _ := hw.PrepareHostedOperator(t)
	path := filepath.Join(t.TempDir(), "operator.kubeconfig")
	if err := os.WriteFile(path, mgmtKubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	d := hw.hostedOperatorDeployment(t)
	pod := hw.hostedOperatorPod(t)
	return hw.commandOf(t, d, hw.HCPNamespace, path, pod, tmpDir), pod
}

// hostedOperatorDeployment is manifests/hosted/management.yaml's operator Deployment for the HCP
// namespace.
func (hw *HostedWorld) hostedOperatorDeployment(t testing.TB) *appsv1.Deployment {
	t.Helper()
	objs, err := manifestshosted.Management(hw.HCPNamespace)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			t.Fatal(err)
		}
		return &d
	}
	t.Fatal("manifests/hosted/management.yaml has no Deployment")
	return nil
}

// hostedOperatorPod creates the operator's Pod in the HCP namespace from management.yaml's Deployment
// template (with its readiness gate), as the Deployment controller would, and returns its name.
func (hw *HostedWorld) hostedOperatorPod(t testing.TB) string {
	t.Helper()
	tmpl := hw.hostedOperatorDeployment(t).Spec.Template
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: names.OperatorName + "-hosted-0", Namespace: hw.HCPNamespace,
		Labels: tmpl.Labels}, Spec: tmpl.Spec}
	pods := hw.Kube.CoreV1().Pods(hw.HCPNamespace)
	if err := pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	Eventually(t, DefaultTimeout, "the operator's pod in the HCP namespace", func(ctx context.Context) error {
		_, err := pods.Create(ctx, pod, metav1.CreateOptions{})
		return err
	})
	t.Cleanup(func() {
		_ = pods.Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	})
	return pod.Name
}

// PodCondition returns the operator pod's condition of type, or an error if it has none.
func (hw *HostedWorld) PodCondition(ctx context.Context, pod, conditionType string) (corev1.PodCondition, error) {
	p, err := hw.Kube.CoreV1().Pods(hw.HCPNamespace).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return corev1.PodCondition{}, err
	}
	for _, c := range p.Status.Conditions {
		if string(c.Type) == conditionType {
			return c, nil
		}
	}
	return corev1.PodCondition{}, fmt.Errorf("pod %s/%s has no condition %s", hw.HCPNamespace, pod, conditionType)
}

func documents(t testing.TB, objs []*unstructured.Unstructured) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, o := range objs {
		data, err := json.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(data)
		out.WriteString("\n")
	}
	return out.Bytes()
}
