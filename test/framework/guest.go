package framework

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// What HyperShift gives the pods of a hosted control plane to reach their guest cluster: a Secret in
// the HCP namespace of the management cluster, mounted into the pod.
const (
	GuestKubeconfigSecret   = "service-network-admin-kubeconfig"
	GuestKubeconfigKey      = "kubeconfig"
	GuestKubeconfigMountDir = "/etc/hosted-kubernetes"
)

// GuestOptions says which guest cluster StartGuest starts.
type GuestOptions struct {
	// InfrastructureName is the guest's Infrastructure status.infrastructureName, the cluster ID the
	// operator names its OpenStack objects after; "manila-guest" if empty. It differs from the
	// management world's so that a test can tell which cluster an object was named after.
	InfrastructureName string
}

// StartGuest starts a guest cluster's control plane: its own etcd and kube-apiserver on free
// loopback ports with their own state and audit log, the same CRDs as the management world, a
// kube-controller-manager with the controllers its pods rely on (baseControllers), and what
// a HyperShift guest has for the operator: Infrastructure/cluster on the OpenStack platform with an
// External control plane, the other config objects, namespace openshift-cluster-csi-drivers and the
// operand namespace as manifests/ defines it. manifests/ is otherwise not applied: in a hosted
// cluster the operator and its RBAC are the hosted flavour's, which each test brings.
func StartGuest(ctx context.Context, opts GuestOptions) (*ControlPlane, error) {
	id := clusterIdentity{
		infrastructureName:   opts.InfrastructureName,
		controlPlaneTopology: configv1.ExternalTopologyMode,
		clusterID:            "00000000-0000-0000-0000-000000000002",
		// The guest's cluster-storage-operator makes openshift-cluster-csi-drivers; nothing of the
		// operator's looks at its labels.
		namespaces: []string{names.OperatorNamespace, "openshift-config", "openshift-config-managed"},
	}
	if id.infrastructureName == "" {
		id.infrastructureName = "manila-guest"
	}
	cp, err := startClusterControlPlane(ctx, "manila-guest-", id)
	if err != nil {
		return nil, fmt.Errorf("guest control plane: %w", err)
	}
	// The guest's DaemonSet pods run through pod runners: they need what pods rely on.
	if err := cp.startBaseControllers(); err != nil {
		cp.Stop()
		return nil, fmt.Errorf("guest control plane: %w", err)
	}
	objs, err := manifests.Objects()
	if err != nil {
		cp.Stop()
		return nil, err
	}
	for _, obj := range objs {
		if obj.GetKind() != "Namespace" {
			continue
		}
		if err := cp.applyObject(ctx, obj, "cluster-version-operator"); err != nil {
			cp.Stop()
			return nil, fmt.Errorf("guest: applying Namespace %s from manifests/: %w", obj.GetName(), err)
		}
	}
	return cp, nil
}

// HostedWorld is the world of a hosted control plane: the management cluster (a World, with the
// OpenStack and the cluster actors) where the operator runs in the HCP namespace, and the guest
// cluster it serves, with its own control plane.
type HostedWorld struct {
	*World
	Guest *ControlPlane
	// HCPNamespace is the hosted control plane's namespace in the management cluster: the operator's
	// namespace there, where Secret service-network-admin-kubeconfig lives.
	HCPNamespace string

	stopOnce sync.Once
}

// HostedOptions says which hosted world StartHosted builds.
type HostedOptions struct {
	Guest GuestOptions
	// HCPNamespace is the HCP namespace in the management cluster; "clusters-manila-guest" if empty
	// (HyperShift names it clusters-<hosted cluster>).
	HCPNamespace string
}

// StartHosted starts a guest beside the world's control plane, which becomes the management
// cluster, and creates the HCP namespace there. The guest stops and the guest kubeconfig Secret is
// deleted when the test ends; the HCP namespace stays (no namespace controller runs to finalise
// its deletion), so a later StartHosted with the same name finds it.
func (w *World) StartHosted(t testing.TB, opts HostedOptions) *HostedWorld {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*DefaultTimeout)
	defer cancel()
	ns := opts.HCPNamespace
	if ns == "" {
		ns = "clusters-manila-guest"
	}
	if err := createNamespace(ctx, w.Kube, ns); err != nil {
		t.Fatalf("creating the HCP namespace %s: %v", ns, err)
	}
	// HyperShift's operator creates the priority class of control-plane pods on the management cluster.
	_, err := w.Kube.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "hypershift-control-plane"}, Value: 100000000}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("PriorityClass hypershift-control-plane: %v", err)
	}
	// HyperShift's CRD of the HostedControlPlane, of which the operator reads the placement fields.
	if err := w.ApplyDocuments(ctx, []byte(hostedControlPlaneCRD)); err != nil {
		t.Fatalf("the HostedControlPlane CRD: %v", err)
	}
	Eventually(t, DefaultTimeout, "the HostedControlPlane CRD established", func(ctx context.Context) error {
		_, err := w.Dynamic.Resource(hostedControlPlanes).Namespace(ns).List(ctx, metav1.ListOptions{})
		return err
	})
	guest, err := StartGuest(ctx, opts.Guest)
	if err != nil {
		t.Fatalf("starting the guest cluster: %v", err)
	}
	// The guest's network operator fills its trusted CA ConfigMaps (the node plugins mount them), as
	// the management cluster's fills the controller's.
	injecting, stopInjecting := context.WithCancel(context.Background())
	if _, err := StartTrustedCAInjector(injecting, guest.Kube, w.TrustedCABundle); err != nil {
		stopInjecting()
		guest.Stop()
		t.Fatalf("the guest's trusted CA injector: %v", err)
	}
	// HyperShift's hosted-cluster-config-operator keeps the guest's ClusterCSIDrivers Managed.
	if err := startHCCOStandIn(injecting, guest); err != nil {
		stopInjecting()
		guest.Stop()
		t.Fatal(err)
	}
	hw := &HostedWorld{World: w, Guest: guest, HCPNamespace: ns}
	t.Cleanup(func() {
		stopInjecting()
		err := w.Kube.CoreV1().Secrets(ns).Delete(context.Background(), GuestKubeconfigSecret, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting Secret %s/%s: %v", ns, GuestKubeconfigSecret, err)
		}
		hw.StopGuest()
	})
	return hw
}

// StopGuest stops the guest's kube-apiserver and etcd and removes their state; later calls do
// nothing. It never stops the management world, which belongs to the test binary.
func (hw *HostedWorld) StopGuest() {
	hw.stopOnce.Do(hw.Guest.Stop)
}

// StoreGuestKubeconfig creates or updates Secret service-network-admin-kubeconfig in the HCP
// namespace with the kubeconfig under key kubeconfig, as HyperShift's control-plane operator does.
func (hw *HostedWorld) StoreGuestKubeconfig(ctx context.Context, kubeconfig []byte) error {
	return hw.ControlPlane.WriteSecret(ctx, hw.HCPNamespace, GuestKubeconfigSecret, map[string][]byte{GuestKubeconfigKey: kubeconfig})
}

// GuestKubeconfig returns the content of Secret service-network-admin-kubeconfig, as the operator's
// pod would find it under /etc/hosted-kubernetes.
func (hw *HostedWorld) GuestKubeconfig(ctx context.Context) ([]byte, error) {
	s, err := hw.Kube.CoreV1().Secrets(hw.HCPNamespace).Get(ctx, GuestKubeconfigSecret, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	kc, ok := s.Data[GuestKubeconfigKey]
	if !ok {
		return nil, fmt.Errorf("Secret %s/%s has no key %s", hw.HCPNamespace, GuestKubeconfigSecret, GuestKubeconfigKey)
	}
	return kc, nil
}

// RotateGuestKubeconfig writes a kubeconfig with a new token for the guest ServiceAccount into
// Secret service-network-admin-kubeconfig and returns it: what the operator sees when HyperShift
// rotates the Secret.
func (hw *HostedWorld) RotateGuestKubeconfig(ctx context.Context, namespace, serviceAccount string) ([]byte, error) {
	kc, err := hw.Guest.ServiceAccountKubeconfig(ctx, namespace, serviceAccount)
	if err != nil {
		return nil, err
	}
	return kc, hw.StoreGuestKubeconfig(ctx, kc)
}

// WriteSecret creates the Secret with data or replaces the data of the one there.
func (cp *ControlPlane) WriteSecret(ctx context.Context, namespace, name string, data map[string][]byte) error {
	secrets := cp.Kube.CoreV1().Secrets(namespace)
	existing, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: data}, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	existing.Data = data
	_, err = secrets.Update(ctx, existing, metav1.UpdateOptions{})
	return err
}

// CreateServiceAccount creates the ServiceAccount (and its namespace) if missing, applies the RBAC
// documents (multi-document YAML or JSON: Roles, ClusterRoles, their bindings, whatever else they
// hold) and returns a kubeconfig with a token for the account. It works on any control plane: the
// guest for the operator's guest identity, the management cluster for its HCP-namespace one.
func (cp *ControlPlane) CreateServiceAccount(ctx context.Context, namespace, name string, rbac []byte) ([]byte, error) {
	if err := createNamespace(ctx, cp.Kube, namespace); err != nil {
		return nil, err
	}
	_, err := cp.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("ServiceAccount %s/%s: %w", namespace, name, err)
	}
	if err := cp.ApplyDocuments(ctx, rbac); err != nil {
		return nil, err
	}
	return cp.ServiceAccountKubeconfig(ctx, namespace, name)
}

// ApplyDocuments applies each object of a multi-document YAML or JSON stream, in order, server-side
// as field manager "test-world".
func (cp *ControlPlane) ApplyDocuments(ctx context.Context, docs []byte) error {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(docs), 4096)
	for i := 0; ; i++ {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("document %d: %w", i, err)
		}
		if len(obj.Object) == 0 {
			continue
		}
		if err := cp.applyObject(ctx, obj, "test-world"); err != nil {
			return fmt.Errorf("applying %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
}

// ReadManifests returns the documents of a manifest file, or of every *.yaml file of a directory in
// name order (the order the cluster-version operator applies them in), as one stream for
// ApplyDocuments.
func ReadManifests(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return os.ReadFile(path)
	}
	files, err := filepath.Glob(filepath.Join(path, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.yaml files in %s", path)
	}
	sort.Strings(files)
	var out bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out.WriteString("\n---\n")
		out.Write(b)
	}
	return out.Bytes(), nil
}

// WriteConfigMap creates the ConfigMap with data or replaces the data of the one there.
func (cp *ControlPlane) WriteConfigMap(ctx context.Context, namespace, name string, data map[string]string) error {
	configMaps := cp.Kube.CoreV1().ConfigMaps(namespace)
	existing, err := configMaps.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Data: data}, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	existing.Data = data
	_, err = configMaps.Update(ctx, existing, metav1.UpdateOptions{})
	return err
}

var hostedControlPlanes = schema.GroupVersionResource{Group: "hypershift.openshift.io", Version: "v1beta1", Resource: "hostedcontrolplanes"}

// hostedControlPlaneCRD is HyperShift's CRD reduced to what the test world needs: the same group,
// version, kind and scope; the schema keeps every field (HyperShift's full schema is thousands of lines).
const hostedControlPlaneCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: hostedcontrolplanes.hypershift.openshift.io
spec:
  group: hypershift.openshift.io
  names: {kind: HostedControlPlane, listKind: HostedControlPlaneList, plural: hostedcontrolplanes, singular: hostedcontrolplane, shortNames: [hcp]}
  scope: Namespaced
  versions:
  - name: v1beta1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// CreateHostedControlPlane creates the HCP namespace's HostedControlPlane with spec, as HyperShift
// does for each hosted cluster; it is deleted when the test ends.
func (hw *HostedWorld) CreateHostedControlPlane(t testing.TB, spec map[string]any) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedControlPlane",
		"metadata": map[string]any{"name": "manila-guest", "namespace": hw.HCPNamespace}, "spec": spec}}
	client := hw.Dynamic.Resource(hostedControlPlanes).Namespace(hw.HCPNamespace)
	if _, err := client.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("HostedControlPlane: %v", err)
	}
	t.Cleanup(func() { _ = client.Delete(context.Background(), "manila-guest", metav1.DeleteOptions{}) })
}
