package managementstate

import (
	"context"
	"errors"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

func TestGated(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "x"}
	writes := map[string]func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error{
		"create a Secret": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).Secrets("ns").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new"}}, metav1.CreateOptions{})
			return err
		},
		"update a Secret": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).Secrets("ns").Update(ctx, &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"k": "v"}}, metav1.UpdateOptions{})
			return err
		},
		"patch a Secret": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).Secrets("ns").Patch(ctx, "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		},
		"delete a Secret": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			return Gated(k.CoreV1(), op).Secrets("ns").Delete(ctx, "x", metav1.DeleteOptions{})
		},
		"create a ConfigMap": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "new"}}, metav1.CreateOptions{})
			return err
		},
		"update a ConfigMap": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).ConfigMaps("ns").Update(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}, metav1.UpdateOptions{})
			return err
		},
		"patch a ConfigMap": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := Gated(k.CoreV1(), op).ConfigMaps("ns").Patch(ctx, "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		},
		"delete a ConfigMap": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			return Gated(k.CoreV1(), op).ConfigMaps("ns").Delete(ctx, "x", metav1.DeleteOptions{})
		},
		"create a StorageClass": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := GatedStorageClasses(k.StorageV1(), op).StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
			return err
		},
		"update a StorageClass": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := GatedStorageClasses(k.StorageV1(), op).StorageClasses().Update(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Provisioner: "p"}, metav1.UpdateOptions{})
			return err
		},
		"patch a StorageClass": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := GatedStorageClasses(k.StorageV1(), op).StorageClasses().Patch(ctx, "x", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		},
		"delete a StorageClass": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			return GatedStorageClasses(k.StorageV1(), op).StorageClasses().Delete(ctx, "x", metav1.DeleteOptions{})
		},
		"update a ConfigMap through GatedConfigMaps": func(ctx context.Context, k *fake.Clientset, op v1helpers.OperatorClient) error {
			_, err := GatedConfigMaps(k.CoreV1(), op).ConfigMaps("ns").Update(ctx, &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}}, metav1.UpdateOptions{})
			return err
		},
	}
	for _, state := range []operatorv1.ManagementState{operatorv1.Managed, operatorv1.Unmanaged, operatorv1.Removed} {
		for name, write := range writes {
			t.Run(string(state)+": "+name, func(t *testing.T) {
				kube := fake.NewClientset(&corev1.Secret{ObjectMeta: meta}, &corev1.ConfigMap{ObjectMeta: meta}, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
				op := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: state}, &operatorv1.OperatorStatus{}, nil)
				err := write(context.Background(), kube, op)
				sent := len(kube.Actions())
				if state == operatorv1.Managed {
					if err != nil || sent != 1 {
						t.Errorf("Managed: %v, %d requests; want the write sent", err, sent)
					}
					return
				}
				if !errors.Is(err, ErrNotManaged) || sent != 0 {
					t.Errorf("%s: %v, %d requests; want ErrNotManaged and nothing sent", state, err, sent)
				}
			})
		}
	}
	// Reads are never gated: resourceapply reads before it decides.
	kube := fake.NewClientset(&corev1.Secret{ObjectMeta: meta})
	op := v1helpers.NewFakeOperatorClient(&operatorv1.OperatorSpec{ManagementState: operatorv1.Unmanaged}, &operatorv1.OperatorStatus{}, nil)
	if _, err := Gated(kube.CoreV1(), op).Secrets("ns").Get(context.Background(), "x", metav1.GetOptions{}); err != nil {
		t.Errorf("Unmanaged: a Get failed: %v", err)
	}
}
