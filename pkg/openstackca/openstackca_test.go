package openstackca

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestFind(t *testing.T) {
	secret := func(data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "hcp", Name: "manila-cloud-credentials"}, Data: map[string][]byte{"clouds.yaml": []byte("x")}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "hcp", Name: "openstack-cloud-config"}, Data: map[string]string{"ca-bundle.pem": "CM"}}
	tests := []struct {
		name        string
		credentials *corev1.Secret
		cloudConfig *corev1.ConfigMap
		pem, from   string
	}{
		{"HyperShift today: both keys and the ConfigMap", secret(map[string]string{"cacert": "NEW", "ca-bundle.pem": "OLD"}), cm, "NEW", "Secret hcp/manila-cloud-credentials key cacert"},
		{"the Secret's legacy key", secret(map[string]string{"ca-bundle.pem": "OLD"}), cm, "OLD", "Secret hcp/manila-cloud-credentials key ca-bundle.pem"},
		{"older: the ConfigMap only", secret(nil), cm, "CM", "ConfigMap hcp/openstack-cloud-config key ca-bundle.pem"},
		{"an empty cacert is no CA", secret(map[string]string{"cacert": ""}), cm, "CM", "ConfigMap hcp/openstack-cloud-config key ca-bundle.pem"},
		{"no Secret", nil, cm, "CM", "ConfigMap hcp/openstack-cloud-config key ca-bundle.pem"},
		{"none", secret(nil), nil, "", ""},
		{"none at all", nil, &corev1.ConfigMap{}, "", ""},
	}
	for _, tc := range tests {
		got := Find(tc.credentials, tc.cloudConfig)
		if string(got.PEM) != tc.pem || got.From != tc.from {
			t.Errorf("%s: Find = %q from %q, want %q from %q", tc.name, got.PEM, got.From, tc.pem, tc.from)
		}
	}
}
