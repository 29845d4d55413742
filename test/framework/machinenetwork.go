package framework

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/machinenetwork"
)

// WriteInstallConfig creates or replaces ConfigMap kube-system/cluster-config-v1 with key
// install-config, as the installer leaves it in every cluster; it is deleted when the test ends.
func (cp *ControlPlane) WriteInstallConfig(t testing.TB, installConfig string) {
	t.Helper()
	ctx := context.Background()
	api := cp.Kube.CoreV1().ConfigMaps(machinenetwork.InstallConfigNamespace)
	existing, err := api.Get(ctx, machinenetwork.InstallConfigName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = api.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: machinenetwork.InstallConfigName, Namespace: machinenetwork.InstallConfigNamespace},
			Data:       map[string]string{machinenetwork.InstallConfigKey: installConfig},
		}, metav1.CreateOptions{})
		t.Cleanup(func() { cp.DeleteInstallConfig(t) })
	case err == nil:
		existing.Data = map[string]string{machinenetwork.InstallConfigKey: installConfig}
		_, err = api.Update(ctx, existing, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// DeleteInstallConfig deletes ConfigMap kube-system/cluster-config-v1 if it exists.
func (cp *ControlPlane) DeleteInstallConfig(t testing.TB) {
	t.Helper()
	err := cp.Kube.CoreV1().ConfigMaps(machinenetwork.InstallConfigNamespace).Delete(context.Background(), machinenetwork.InstallConfigName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Error(err)
	}
}

// CreateNode creates a Node and then sets its status addresses through the status subresource, as a
// kubelet does (a create ignores status); it is deleted when the test ends.
func (cp *ControlPlane) CreateNode(t testing.TB, name string, addresses ...corev1.NodeAddress) {
	t.Helper()
	ctx := context.Background()
	if _, err := cp.Kube.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cp.DeleteNode(t, name) })
	cp.SetNodeAddresses(t, name, addresses...)
}

// SetNodeAddresses replaces a Node's status addresses.
func (cp *ControlPlane) SetNodeAddresses(t testing.TB, name string, addresses ...corev1.NodeAddress) {
	t.Helper()
	Eventually(t, DefaultTimeout, "addresses of node "+name, func(ctx context.Context) error {
		n, err := cp.Kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status.Addresses = addresses
		_, err = cp.Kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	})
}

// DeleteNode deletes a Node if it exists.
func (cp *ControlPlane) DeleteNode(t testing.TB, name string) {
	t.Helper()
	err := cp.Kube.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Error(err)
	}
}

// InternalIP and ExternalIP are node addresses of those types.
func InternalIP(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: ip}
}

func ExternalIP(ip string) corev1.NodeAddress {
	return corev1.NodeAddress{Type: corev1.NodeExternalIP, Address: ip}
}
