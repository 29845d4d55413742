package managementstate

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	storagev1client "k8s.io/client-go/kubernetes/typed/storage/v1"
)

// GatedStorageClasses is Gated for a client of StorageClasses: a class an admin deletes or edits after
// setting Unmanaged is not recreated or overwritten by a sync that started while Managed.
func GatedStorageClasses(client storagev1client.StorageClassesGetter, operator v1helpers.OperatorClient) storagev1client.StorageClassesGetter {
	return gatedClassesGetter{getter: client, managed: gate(operator)}
}

type gatedClassesGetter struct {
	getter  storagev1client.StorageClassesGetter
	managed func() error
}

func (g gatedClassesGetter) StorageClasses() storagev1client.StorageClassInterface {
	return gatedClasses{StorageClassInterface: g.getter.StorageClasses(), managed: g.managed}
}

type gatedClasses struct {
	storagev1client.StorageClassInterface
	managed func() error
}

func (c gatedClasses) Create(ctx context.Context, o *storagev1.StorageClass, opts metav1.CreateOptions) (*storagev1.StorageClass, error) {
	return whenManaged(c.managed, func() (*storagev1.StorageClass, error) { return c.StorageClassInterface.Create(ctx, o, opts) })
}

func (c gatedClasses) Update(ctx context.Context, o *storagev1.StorageClass, opts metav1.UpdateOptions) (*storagev1.StorageClass, error) {
	return whenManaged(c.managed, func() (*storagev1.StorageClass, error) { return c.StorageClassInterface.Update(ctx, o, opts) })
}

func (c gatedClasses) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*storagev1.StorageClass, error) {
	return whenManaged(c.managed, func() (*storagev1.StorageClass, error) {
		return c.StorageClassInterface.Patch(ctx, name, pt, data, opts, sub...)
	})
}

func (c gatedClasses) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := c.managed(); err != nil {
		return err
	}
	return c.StorageClassInterface.Delete(ctx, name, opts)
}
