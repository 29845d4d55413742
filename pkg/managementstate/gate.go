package managementstate

import (
	"context"
	"errors"

	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// ErrNotManaged is a write a Gated client refused: the ClusterCSIDriver was no longer Managed when
// it was to be sent.
var ErrNotManaged = errors.New("the ClusterCSIDriver is not Managed: nothing is written")

// Gated is client whose Secret and ConfigMap writes are sent only while operator reads Managed at that
// moment, ErrNotManaged otherwise. A sync checks Managed when it starts, and resourceapply reads the
// object before writing it: an admin who sets Unmanaged and then edits the object could otherwise
// see the edit overwritten by a sync that started before. With the check at the write, either the
// read came before the edit (the write then conflicts with it) or the write sees Unmanaged.
func Gated(client corev1client.CoreV1Interface, operator v1helpers.OperatorClient) corev1client.CoreV1Interface {
	return gatedCore{CoreV1Interface: client, managed: gate(operator)}
}

// GatedConfigMaps is Gated for a client of ConfigMaps only.
func GatedConfigMaps(client corev1client.ConfigMapsGetter, operator v1helpers.OperatorClient) corev1client.ConfigMapsGetter {
	return gatedConfigMapsGetter{getter: client, managed: gate(operator)}
}

// StillManaged returns nil while operator reads Managed, ErrNotManaged otherwise: a sync's check at
// the moment it sends a write that no gated client carries (a delete, a patch).
func StillManaged(operator v1helpers.OperatorClient) error { return gate(operator)() }

func gate(operator v1helpers.OperatorClient) func() error {
	return func() error {
		if managed, err := Managed(operator); err != nil {
			return err
		} else if !managed {
			return ErrNotManaged
		}
		return nil
	}
}

type gatedConfigMapsGetter struct {
	getter  corev1client.ConfigMapsGetter
	managed func() error
}

func (g gatedConfigMapsGetter) ConfigMaps(namespace string) corev1client.ConfigMapInterface {
	return gatedConfigMaps{ConfigMapInterface: g.getter.ConfigMaps(namespace), managed: g.managed}
}

// whenManaged sends write when managed says so, and returns managed's refusal otherwise.
func whenManaged[T any](managed func() error, write func() (T, error)) (T, error) {
	if err := managed(); err != nil {
		var none T
		return none, err
	}
	return write()
}

type gatedCore struct {
	corev1client.CoreV1Interface
	managed func() error
}

func (c gatedCore) Secrets(namespace string) corev1client.SecretInterface {
	return gatedSecrets{SecretInterface: c.CoreV1Interface.Secrets(namespace), managed: c.managed}
}

func (c gatedCore) ConfigMaps(namespace string) corev1client.ConfigMapInterface {
	return gatedConfigMaps{ConfigMapInterface: c.CoreV1Interface.ConfigMaps(namespace), managed: c.managed}
}

type gatedSecrets struct {
	corev1client.SecretInterface
	managed func() error
}

func (s gatedSecrets) Create(ctx context.Context, o *corev1.Secret, opts metav1.CreateOptions) (*corev1.Secret, error) {
	return whenManaged(s.managed, func() (*corev1.Secret, error) { return s.SecretInterface.Create(ctx, o, opts) })
}

func (s gatedSecrets) Update(ctx context.Context, o *corev1.Secret, opts metav1.UpdateOptions) (*corev1.Secret, error) {
	return whenManaged(s.managed, func() (*corev1.Secret, error) { return s.SecretInterface.Update(ctx, o, opts) })
}

func (s gatedSecrets) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.Secret, error) {
	return whenManaged(s.managed, func() (*corev1.Secret, error) { return s.SecretInterface.Patch(ctx, name, pt, data, opts, sub...) })
}

func (s gatedSecrets) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := s.managed(); err != nil {
		return err
	}
	return s.SecretInterface.Delete(ctx, name, opts)
}

type gatedConfigMaps struct {
	corev1client.ConfigMapInterface
	managed func() error
}

func (m gatedConfigMaps) Create(ctx context.Context, o *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	return whenManaged(m.managed, func() (*corev1.ConfigMap, error) { return m.ConfigMapInterface.Create(ctx, o, opts) })
}

func (m gatedConfigMaps) Update(ctx context.Context, o *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	return whenManaged(m.managed, func() (*corev1.ConfigMap, error) { return m.ConfigMapInterface.Update(ctx, o, opts) })
}

func (m gatedConfigMaps) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, sub ...string) (*corev1.ConfigMap, error) {
	return whenManaged(m.managed, func() (*corev1.ConfigMap, error) {
		return m.ConfigMapInterface.Patch(ctx, name, pt, data, opts, sub...)
	})
}

func (m gatedConfigMaps) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	if err := m.managed(); err != nil {
		return err
	}
	return m.ConfigMapInterface.Delete(ctx, name, opts)
}
