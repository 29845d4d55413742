package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/guestlink"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// End to end, hosted, with OpenStack behind TLS of a private CA (the OCPBUGS-115269 class: the CA
// moved between HyperShift's objects and stopped reaching the driver): Keystone and Manila (in the
// catalog only at its https endpoint) serve certificates of a CA no system trusts; HyperShift's
// credentials and CA are in the HCP namespace as HyperShift writes them now (the CA only in the
// Secrets' cacert, as once the legacy copies go) and as it wrote them before (the CA only in the
// cloud config ConfigMap). The controller's driver runs with its container's /etc mounts in place
// (hack/container-mounts.sh), so a claim binds only if the CA reaches the controller Deployment's
// csi-driver container at the path the driver secret names.
func TestHostedE2EPrivateCA(t *testing.T) {
	if os.Geteuid() != 0 {
		// As every binary test (hack/readonly-root.sh): the project's machines run the tests as root.
		t.Fatal("needs root: the driver runs in a mount namespace of its container's mounts")
	}
	if _, err := os.Stat(cloudcredentials.CAPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s on this machine (%v): the driver could read a CA the operator did not mount", cloudcredentials.CAPath, err)
	}
	w := shareWorld(t)
	if _, err := w.OpenStack.CreateShareType(context.Background(), framework.ShareTypeSpec{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, namespace string
		creds           framework.HyperShiftCredentials
	}{
		{"current/cacert", "clusters-ca-current", framework.HyperShiftCredentials{CACertOnly: true}},
		{"old/cloud-config", "clusters-ca-old", framework.HyperShiftCredentials{Old: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			hostedPrivateCAClaim(t, w, tc.namespace, tc.creds)
			t.Logf("%s: %s", tc.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// hostedPrivateCAClaim puts the world's Keystone and Manila behind TLS of a new CA (so nothing a
// previous run left trusts it), writes HyperShift's objects in HCP namespace ns as creds says, with
// the https clouds.yaml and the CA, runs the hosted operator and, once the CA reached the driver
// secret, the copies and the controller Deployment, provisions and deletes a claim of the guest.
func hostedPrivateCAClaim(t *testing.T, w *framework.World, ns string, creds framework.HyperShiftCredentials) {
	ctx := context.Background()
	o := w.OpenStack
	proxy := framework.StartTLSProxy(t, fmt.Sprintf("http://127.0.0.1:%d", o.KeystonePort))
	manilaTLS := proxy.Serve(t, fmt.Sprintf("http://127.0.0.1:%d", o.ManilaPort))
	if err := o.RemoveManilaFromCatalog(ctx); err != nil {
		t.Fatal(err)
	}
	if err := o.RegisterManilaAtURL(ctx, manilaTLS); err != nil {
		t.Fatal(err)
	}
	authURL := proxy.URL + "/v3"
	creds.CloudsYAML = bytes.Replace(o.CloudsYAML(), []byte(o.AuthURL()), []byte(authURL), 1)
	if !bytes.Contains(creds.CloudsYAML, []byte(authURL)) {
		t.Fatalf("clouds.yaml without Keystone's URL %s", o.AuthURL())
	}
	creds.CAPEM = proxy.CAPEM

	hw := w.StartHosted(t, framework.HostedOptions{HCPNamespace: ns})
	opts, counter := framework.OperatorOptions()
	op := hw.RunHostedOperatorWithCredentials(t, opts, counter, creds)
	waitGuestLink(t, hw, op, guestlink.ReasonReachable)
	guest := &framework.World{ControlPlane: hw.Guest, OpenStack: o}
	// The operator's own share type listing goes through TLS Manila with the CA.
	class := guest.WaitForClassOfShareType(t, "default")

	framework.Eventually(t, framework.DefaultTimeout, "the guest's driver secret pointing at the CA over https", func(ctx context.Context) error {
		s, err := hw.Guest.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := string(s.Data[cloudcredentials.CAPathKey]); got != cloudcredentials.CAPath {
			return fmt.Errorf("%s %q, want %q", cloudcredentials.CAPathKey, got, cloudcredentials.CAPath)
		}
		if got := string(s.Data["os-authURL"]); got != authURL {
			return fmt.Errorf("os-authURL %q, want %q", got, authURL)
		}
		if _, insecure := s.Data["os-TLSInsecure"]; insecure {
			return fmt.Errorf("os-TLSInsecure set: the CA would not be needed")
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the CA copies in "+ns+" and the guest", func(ctx context.Context) error {
		for where, cp := range map[string]*framework.ControlPlane{ns: hw.ControlPlane, "the guest's " + names.OperandNamespace: hw.Guest} {
			namespace := ns
			if cp == hw.Guest {
				namespace = names.OperandNamespace
			}
			cm, err := cp.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, names.CloudCAConfigMap, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("CA copy in %s: %w", where, err)
			}
			if cm.Data[names.CABundleKey] != string(proxy.CAPEM) {
				return fmt.Errorf("CA copy in %s is not the TLS proxy's CA", where)
			}
		}
		return nil
	})
	// The HCP namespace's copy deleted (its controller Deployment mounts it): the operator writes it again
	// on that event.
	if err := hw.Kube.CoreV1().ConfigMaps(ns).Delete(ctx, names.CloudCAConfigMap, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, framework.DefaultTimeout, "the CA copy in "+ns+" written again", func(ctx context.Context) error {
		cm, err := hw.Kube.CoreV1().ConfigMaps(ns).Get(ctx, names.CloudCAConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data[names.CABundleKey] != string(proxy.CAPEM) {
			return fmt.Errorf("the CA copy is not the TLS proxy's CA")
		}
		return nil
	})
	framework.Eventually(t, framework.DefaultTimeout, "the controller Deployment's csi-driver mounting the CA copy", func(ctx context.Context) error {
		d, err := hw.Kube.AppsV1().Deployments(ns).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return mountsCACopy(d)
	})

	start := time.Now()
	prov := guest.StartProvisioningWith(t, framework.ProvisioningOptions{Controller: hw.ControlPlane, ControllerNamespace: ns})
	if !prov.DriverMountsInPlace {
		t.Fatal("the driver runs without its container's /etc mounts")
	}
	t.Logf("hosted provisioning world up in %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	claim := guest.CreateClaim(t, "e2e-hosted-ca", "data", class.Name, "1Gi")
	pv := guest.WaitForClaimBound(t, claim)
	share := guest.WaitForShareAvailable(t, pv.Spec.CSI.VolumeHandle)
	t.Logf("claim bound, share %s available in %s", share.ID, time.Since(start).Round(time.Millisecond))
	infra, err := hw.Guest.ConfigV1.ConfigV1().Infrastructures().Get(ctx, "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := share.Metadata[clusterMetadataKey]; got != infra.Status.InfrastructureName {
		t.Errorf("share %s metadata %s=%q, want the guest's %q", share.ID, clusterMetadataKey, got, infra.Status.InfrastructureName)
	}
	start = time.Now()
	deleteClaimAndWaitForShareGone(t, guest, claim.Namespace, claim.Name, share.ID)
	t.Logf("share deleted with its claim in %s", time.Since(start).Round(time.Millisecond))
	noSecretInLogs(t, guest, prov)
}

// mountsCACopy says whether the Deployment's csi-driver container mounts ConfigMap
// manila-csi-driver-cloud-ca (all of it, or its ca-bundle.pem at that name) at the directory of the
// driver secret's CA path.
func mountsCACopy(d *appsv1.Deployment) error {
	spec := d.Spec.Template.Spec
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.ConfigMap == nil || v.ConfigMap.Name != names.CloudCAConfigMap {
			continue
		}
		ok := len(v.ConfigMap.Items) == 0
		for _, it := range v.ConfigMap.Items {
			ok = ok || (it.Key == names.CABundleKey && it.Path == path.Base(cloudcredentials.CAPath))
		}
		volumes[v.Name] = ok
	}
	for _, c := range spec.Containers {
		if c.Name != framework.DriverContainer {
			continue
		}
		for _, m := range c.VolumeMounts {
			if volumes[m.Name] && m.SubPath == "" && path.Clean(m.MountPath) == path.Dir(cloudcredentials.CAPath) {
				return nil
			}
		}
		return fmt.Errorf("csi-driver mounts %v; none is ConfigMap %s at %s", c.VolumeMounts, names.CloudCAConfigMap, path.Dir(cloudcredentials.CAPath))
	}
	return fmt.Errorf("no container %s", framework.DriverContainer)
}
