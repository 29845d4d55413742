package integration

import (
	"context"
	"fmt"
	"maps"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// trustedCAVolume is the volume library-go's CA-bundle hooks add for the cluster's trusted CA bundle.
const trustedCAVolume = "non-standard-root-system-trust-ca-bundle"

// A change of the cluster's trusted CA bundle and of the cluster proxy rolls the node plugins that call
// Keystone and Manila (the Manila node plugins of both instances get the new bundle's hash and the
// proxy), and neither of the two that speak only NFS or Ceph's protocols: the DaemonSets of
// csi-driver-nfs and ceph-csi keep their generation, with no proxy and no trusted CA (a roll of
// ceph-csi's ends the ceph-fuse mounts of the pods running on its nodes). Checked once the Manila
// node plugins have both changes: the same informer events reach every node controller.
func TestStorageOnlyNodePluginsKeepTheirPodsAcrossCAAndProxy(t *testing.T) {
	startOperator(t, cephFSConfig(goodCephCSI), framework.ShareTypeSpec{Name: "default"})
	waitForCephCSIImage(t, goodCephCSI)
	changeCAAndProxy(t, []string{framework.NodeDaemonSet, framework.CephFSNodeDaemonSet},
		[]string{framework.NFSNodeDaemonSet, framework.CephCSINodeDaemonSet})
}

// changeCAAndProxy rotates the cluster's trusted CA bundle and sets the cluster proxy (both undone when
// the test ends), waits until the operator has rendered each DaemonSet of callers with both (a new
// trusted CA hash, HTTPS_PROXY), and checks that each of quiet kept its generation and has neither.
func changeCAAndProxy(t *testing.T, callers, quiet []string) {
	t.Helper()
	ctx := context.Background()
	before := map[string]map[string]string{}
	for _, name := range callers {
		ds := world.WaitForDaemonSet(t, name, func(ds *appsv1.DaemonSet) error {
			if !hasVolume(ds.Spec.Template.Spec, trustedCAVolume) {
				return fmt.Errorf("no trusted CA volume yet")
			}
			return nil
		})
		before[name] = ds.Spec.Template.Annotations
	}
	generations := map[string]int64{}
	for _, name := range quiet {
		generations[name] = world.WaitForDaemonSet(t, name, nil).Generation
	}

	rotated := append(append([]byte{}, world.TrustedCABundle...), '\n')
	if err := world.TrustedCA.Rotate(ctx, rotated); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := world.TrustedCA.Rotate(context.Background(), world.TrustedCABundle); err != nil {
			t.Errorf("the trusted CA bundle back: %v", err)
		}
	})
	const proxyURL = "http://127.0.0.1:3128"
	setClusterProxy(t, configv1.ProxyStatus{HTTPProxy: proxyURL, HTTPSProxy: proxyURL, NoProxy: "localhost,127.0.0.1"})

	for _, name := range callers {
		world.WaitForDaemonSet(t, name, func(ds *appsv1.DaemonSet) error {
			if maps.Equal(ds.Spec.Template.Annotations, before[name]) {
				return fmt.Errorf("the pod template's annotations unchanged: no new trusted CA hash yet")
			}
			if !hasEnv(ds.Spec.Template.Spec, "HTTPS_PROXY", proxyURL) {
				return fmt.Errorf("no HTTPS_PROXY yet")
			}
			return nil
		})
	}
	for name, generation := range generations {
		ds := world.WaitForDaemonSet(t, name, nil)
		if ds.Generation != generation {
			t.Errorf("DaemonSet %s changed (generation %d -> %d): a change of the CA bundle or proxy rolls it", name, generation, ds.Generation)
		}
		if hasVolume(ds.Spec.Template.Spec, trustedCAVolume) || hasEnv(ds.Spec.Template.Spec, "HTTPS_PROXY", proxyURL) {
			t.Errorf("DaemonSet %s has the trusted CA or the proxy", name)
		}
	}
}

// hasEnv is whether any container of spec has the variable with that value.
func hasEnv(spec corev1.PodSpec, name, value string) bool {
	for _, c := range spec.Containers {
		for _, e := range c.Env {
			if e.Name == name && e.Value == value {
				return true
			}
		}
	}
	return false
}
