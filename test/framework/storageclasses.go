package framework

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// ResetStorageClasses deletes every StorageClass the operator owns and the operator ConfigMap.
func (cp *ControlPlane) ResetStorageClasses(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	err := cp.Kube.StorageV1().StorageClasses().DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: classplan.OwnerLabel + "=" + classplan.OwnerLabelValue})
	if err != nil {
		t.Fatal(err)
	}
	err = cp.Kube.CoreV1().ConfigMaps(names.OperatorNamespace).Delete(ctx, operatorconfig.ConfigMapName, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

// WriteOperatorConfig creates or replaces the operator ConfigMap's config.yaml; it is deleted when
// the test ends.
func (cp *ControlPlane) WriteOperatorConfig(t testing.TB, yaml string) {
	t.Helper()
	ctx := context.Background()
	api := cp.Kube.CoreV1().ConfigMaps(names.OperatorNamespace)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: operatorconfig.ConfigMapName, Namespace: names.OperatorNamespace},
		Data: map[string]string{operatorconfig.Key: yaml}}
	existing, err := api.Get(ctx, cm.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = api.Create(ctx, cm, metav1.CreateOptions{})
		t.Cleanup(func() { _ = api.Delete(context.Background(), cm.Name, metav1.DeleteOptions{}) })
	case err == nil:
		existing.Data = cm.Data
		_, err = api.Update(ctx, existing, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// WaitForStorageClass waits until the class exists and check passes.
func (cp *ControlPlane) WaitForStorageClass(t testing.TB, name string, check func(*storagev1.StorageClass) error) *storagev1.StorageClass {
	t.Helper()
	var got *storagev1.StorageClass
	Eventually(t, DefaultTimeout, "StorageClass "+name, func(ctx context.Context) error {
		sc, err := cp.Kube.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(sc); err != nil {
				return err
			}
		}
		got = sc
		return nil
	})
	return got
}

// WaitForNoStorageClass waits until the class is gone.
func (cp *ControlPlane) WaitForNoStorageClass(t testing.TB, name string) {
	t.Helper()
	Eventually(t, DefaultTimeout, "StorageClass "+name+" to be gone", func(ctx context.Context) error {
		_, err := cp.Kube.StorageV1().StorageClasses().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (err=%v)", err)
	})
}

// OwnedStorageClasses lists the classes the operator owns, by share-type name.
func (cp *ControlPlane) OwnedStorageClasses(ctx context.Context) (map[string]storagev1.StorageClass, error) {
	list, err := cp.Kube.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{
		LabelSelector: classplan.OwnerLabel + "=" + classplan.OwnerLabelValue})
	if err != nil {
		return nil, err
	}
	out := map[string]storagev1.StorageClass{}
	for _, sc := range list.Items {
		out[sc.Annotations[classplan.ShareTypeNameAnnotation]] = sc
	}
	return out, nil
}
