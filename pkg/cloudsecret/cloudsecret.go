// Package cloudsecret finds the cloud credentials Secret where the layout keeps it:
// manila-cloud-credentials, and, hosted, HyperShift's openstack-cloud-credentials when that one is
// absent (HyperShift writes both with the same content today; cluster-storage-operator's hosted
// Deployment mounts the second).
package cloudsecret

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1informers "k8s.io/client-go/informers/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// Finder reads the credentials Secret from informers of each of its names.
type Finder struct {
	names   []string
	listers []corev1listers.SecretNamespaceLister
}

// New returns the Finder of layout: primary is an informer of manila-cloud-credentials's namespace,
// other (hosted, nil standalone) one of layout.OtherCredentialsSecret's.
func New(layout names.Layout, primary, other corev1informers.SecretInformer) Finder {
	f := Finder{names: []string{names.CloudCredentialsSecret},
		listers: []corev1listers.SecretNamespaceLister{primary.Lister().Secrets(layout.CredentialsNamespace)}}
	if layout.OtherCredentialsSecret != "" && other != nil {
		f.names = append(f.names, layout.OtherCredentialsSecret)
		f.listers = append(f.listers, other.Lister().Secrets(layout.CredentialsNamespace))
	}
	return f
}

// Names are the Secret names read, the first preferred.
func (f Finder) Names() []string { return f.names }

// Get returns the first of the Secrets that exists, or the NotFound of the first.
func (f Finder) Get() (*corev1.Secret, error) {
	var first error
	for i, l := range f.listers {
		s, err := l.Get(f.names[i])
		if err == nil {
			return s, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}
