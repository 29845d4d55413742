package framework

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// World is both halves of the test world, a control plane and an OpenStack, with the cluster's own
// actors that act on the operator's objects as on OpenShift: a trusted-CA injector (the network
// operator) and a service-ca signer.
type World struct {
	*ControlPlane
	OpenStack *OpenStack
	TrustedCA *TrustedCAInjector
	ServiceCA *ServiceCA
	// TrustedCABundle is what the injector writes into key ca-bundle.crt: the service CA and the
	// control plane's CA, a real PEM bundle.
	TrustedCABundle []byte
	stopActors      context.CancelFunc
}

// StartWorld starts the control plane and OpenStack side by side and stores the generated
// clouds.yaml as Secret manila-cloud-credentials in the operator namespace.
func StartWorld(ctx context.Context) (*World, error) {
	return StartWorldWith(ctx, OpenStackOptions{})
}

// StartWorldWith is StartWorld with an OpenStack of the given options.
func StartWorldWith(ctx context.Context, opts OpenStackOptions) (*World, error) {
	type cpResult struct {
		cp  *ControlPlane
		err error
	}
	cpCh := make(chan cpResult, 1)
	go func() {
		cp, err := StartControlPlane(ctx)
		cpCh <- cpResult{cp, err}
	}()
	os, osErr := StartOpenStackWith(ctx, opts)
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
	if err := w.startActors(); err != nil {
		w.Stop()
		return nil, err
	}
	if err := w.WriteCloudCredentials(ctx, os.CloudsYAML()); err != nil {
		w.Stop()
		return nil, fmt.Errorf("writing %s: %w", names.CloudCredentialsSecret, err)
	}
	return w, nil
}

// WithOpenStack returns the world with another OpenStack in place of its own: the same control plane
// and cluster actors. It is for a test that needs what the shared OpenStack lacks (a share service)
// without a second control plane; the test stops that OpenStack itself and must never Stop the
// returned world.
func (w *World) WithOpenStack(o *OpenStack) *World {
	return &World{ControlPlane: w.ControlPlane, OpenStack: o, TrustedCA: w.TrustedCA, ServiceCA: w.ServiceCA,
		TrustedCABundle: w.TrustedCABundle}
}

// Stop stops everything StartWorld started.
func (w *World) Stop() {
	if w.stopActors != nil {
		w.stopActors()
	}
	w.ControlPlane.Stop()
	w.OpenStack.Stop()
}

// WriteCloudCredentials creates or replaces Secret manila-cloud-credentials with the given clouds.yaml,
// as the cloud-credential-operator would.
func (w *World) WriteCloudCredentials(ctx context.Context, cloudsYAML []byte) error {
	return w.WriteSecret(ctx, names.OperatorNamespace, names.CloudCredentialsSecret, map[string][]byte{names.CloudsYAMLKey: cloudsYAML})
}

// MetricsServingCertSecret is what service-ca creates for the operand's metrics Service.
const MetricsServingCertSecret = "manila-csi-driver-controller-metrics-serving-cert"

// startActors starts the cluster's actors for the life of the world.
func (w *World) startActors() error {
	ctx, cancel := context.WithCancel(context.Background())
	w.stopActors = cancel
	sca, err := StartServiceCA(ctx, w.Kube)
	if err != nil {
		return fmt.Errorf("service-ca stand-in: %w", err)
	}
	cpCA := w.Config.TLSClientConfig.CAData
	if len(cpCA) == 0 {
		if cpCA, err = os.ReadFile(w.Config.TLSClientConfig.CAFile); err != nil {
			return err
		}
	}
	w.ServiceCA = sca
	w.TrustedCABundle = append(append([]byte{}, sca.CAPEM...), cpCA...)
	if w.TrustedCA, err = StartTrustedCAInjector(ctx, w.Kube, w.TrustedCABundle); err != nil {
		return fmt.Errorf("trusted CA injector: %w", err)
	}
	return nil
}
