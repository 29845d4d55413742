package framework

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// World is both halves of the test world: a control plane and an OpenStack.
type World struct {
	*ControlPlane
	OpenStack *OpenStack
}

// StartWorld starts the control plane and OpenStack side by side and stores the generated
// clouds.yaml as Secret manila-cloud-credentials in the operator namespace.
func StartWorld(ctx context.Context) (*World, error) {
	type cpResult struct {
		cp  *ControlPlane
		err error
	}
	cpCh := make(chan cpResult, 1)
	go func() {
		cp, err := StartControlPlane(ctx)
		cpCh <- cpResult{cp, err}
	}()
	os, osErr := StartOpenStack(ctx)
	res := <-cpCh
	if res.err != nil || osErr != nil {
		if res.cp != nil {
			res.cp.Stop()
		}
		if os != nil {
			os.Stop()
		}
		return nil, errors.Join(res.err, osErr)
	}
	w := &World{ControlPlane: res.cp, OpenStack: os}
	if err := w.createServingCert(ctx); err != nil {
		w.Stop()
		return nil, fmt.Errorf("creating the metrics serving cert: %w", err)
	}
	if err := w.WriteCloudCredentials(ctx, os.CloudsYAML()); err != nil {
		w.Stop()
		return nil, fmt.Errorf("writing %s: %w", names.CloudCredentialsSecret, err)
	}
	return w, nil
}

// Stop stops everything StartWorld started.
func (w *World) Stop() {
	w.ControlPlane.Stop()
	w.OpenStack.Stop()
}

// WriteCloudCredentials creates or replaces Secret manila-cloud-credentials with the given clouds.yaml,
// as the cloud-credential-operator would.
func (w *World) WriteCloudCredentials(ctx context.Context, cloudsYAML []byte) error {
	secrets := w.Kube.CoreV1().Secrets(names.OperatorNamespace)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: names.CloudCredentialsSecret, Namespace: names.OperatorNamespace},
		Data:       map[string][]byte{names.CloudsYAMLKey: cloudsYAML},
	}
	existing, err := secrets.Get(ctx, secret.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = secrets.Create(ctx, secret, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	existing.Data = secret.Data
	_, err = secrets.Update(ctx, existing, metav1.UpdateOptions{})
	return err
}

// MetricsServingCertSecret is what service-ca would create for the operand's metrics Service.
const MetricsServingCertSecret = "manila-csi-driver-controller-metrics-serving-cert"

func (w *World) createServingCert(ctx context.Context) error {
	_, err := w.Kube.CoreV1().Secrets(names.OperandNamespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: MetricsServingCertSecret, Namespace: names.OperandNamespace},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{"tls.crt": []byte("cert"), "tls.key": []byte("key")},
	}, metav1.CreateOptions{})
	return err
}
