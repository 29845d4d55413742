package cloudsecret

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

func TestFinder(t *testing.T) {
	secret := func(name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "hcp", Name: name}}
	}
	tests := []struct {
		name    string
		layout  names.Layout
		present []string
		want    string // "" = NotFound
	}{
		{"standalone", names.Standalone(), []string{names.CloudCredentialsSecret}, names.CloudCredentialsSecret},
		{"hosted, HyperShift writes both", names.Hosted("hcp"), []string{names.CloudCredentialsSecret, names.HostedOpenStackCredentialsSecret}, names.CloudCredentialsSecret},
		{"hosted, the other name only", names.Hosted("hcp"), []string{names.HostedOpenStackCredentialsSecret}, names.HostedOpenStackCredentialsSecret},
		{"hosted, neither", names.Hosted("hcp"), nil, ""},
		{"standalone never reads the other name", names.Standalone(), []string{names.HostedOpenStackCredentialsSecret}, ""},
	}
	for _, tc := range tests {
		ns := tc.layout.CredentialsNamespace
		primary := informers.NewSharedInformerFactory(nil, 0).Core().V1().Secrets()
		other := informers.NewSharedInformerFactory(nil, 0).Core().V1().Secrets()
		for _, n := range tc.present {
			s := secret(n)
			s.Namespace = ns
			store := primary.Informer().GetStore()
			if n != names.CloudCredentialsSecret {
				store = other.Informer().GetStore()
			}
			if err := store.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		got, err := New(tc.layout, primary, other).Get()
		switch {
		case tc.want == "" && !apierrors.IsNotFound(err):
			t.Errorf("%s: %v, %v; want NotFound", tc.name, got, err)
		case tc.want != "" && (err != nil || got.Name != tc.want):
			t.Errorf("%s: %v, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}
