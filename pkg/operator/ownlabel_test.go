package operator

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/state"
)

func TestLabelOwnConfigMaps(t *testing.T) {
	cm := func(name string, labels map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "hcp", Labels: labels}}
	}
	kube := fake.NewClientset(
		cm(state.ConfigMapName, map[string]string{"app.kubernetes.io/managed-by": names.OperatorName}),
		cm(names.CloudCAConfigMap, map[string]string{names.OwnerLabel: names.OwnerLabelValue}),
		cm("kube-apiserver-config", nil),
	)
	if err := labelOwnConfigMaps(context.Background(), kube, "hcp"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]map[string]string{
		state.ConfigMapName:     {"app.kubernetes.io/managed-by": names.OperatorName, names.OwnerLabel: names.OwnerLabelValue},
		names.CloudCAConfigMap:  {names.OwnerLabel: names.OwnerLabelValue},
		"kube-apiserver-config": nil,
	} {
		got, err := kube.CoreV1().ConfigMaps("hcp").Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Labels) != len(want) {
			t.Errorf("%s: labels %v, want %v", name, got.Labels, want)
		}
		for k, v := range want {
			if got.Labels[k] != v {
				t.Errorf("%s: labels %v, want %v", name, got.Labels, want)
			}
		}
	}
	// The trusted CA bundle does not exist: nothing is created.
	if _, err := kube.CoreV1().ConfigMaps("hcp").Get(context.Background(), ownHCPConfigMaps[0], metav1.GetOptions{}); err == nil {
		t.Errorf("%s was created", ownHCPConfigMaps[0])
	}
}
