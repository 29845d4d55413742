package integration

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/configcheck"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// csoGenericOperatorConfig is what cluster-storage-operator (main, 7397a43f) writes into ConfigMap
// manila-csi-driver-operator-config key config.yaml: the cluster's TLS profile for the operator's
// endpoint, here the Modern profile's TLS 1.3.
const csoGenericOperatorConfig = `apiVersion: operator.openshift.io/v1alpha1
kind: GenericOperatorConfig
servingInfo:
  minTLSVersion: VersionTLS13
`

// The built binary started as cluster-storage-operator's Deployment starts it (`--config` and
// `--terminate-on-files` on its GenericOperatorConfig, no certificate flags: the serving cert comes
// from controllercmd's fixed directory or is self-signed), with CSO's content in the ConfigMap that
// was once this operator's: the TLS settings reach the endpoint, the content is neither an error nor
// migrated, classes are made, nothing is Degraded, and a change of the file restarts the process.
func TestBinaryUnderCSOsGenericOperatorConfig(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	cms := world.Kube.CoreV1().ConfigMaps(names.OperatorNamespace)
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: operatorconfig.LegacyConfigMapName, Namespace: names.OperatorNamespace},
		Data: map[string]string{operatorconfig.Key: csoGenericOperatorConfig}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cms.Delete(context.Background(), operatorconfig.LegacyConfigMapName, metav1.DeleteOptions{})
	})
	configFile := filepath.Join(t.TempDir(), "config.yaml") // the ConfigMap's volume, as the kubelet writes it
	if err := os.WriteFile(configFile, []byte(csoGenericOperatorConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	createShareType(t, framework.ShareTypeSpec{Name: "cso_gold"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinaryWith(t, operatorBinary(t), csoArgs(configFile))
	run.waitHealthy(t)

	for version, want := range map[uint16]bool{tls.VersionTLS12: false, tls.VersionTLS13: true} {
		client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			MaxVersion: version, InsecureSkipVerify: true}}} //nolint:gosec // self-signed serving cert
		resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", run.port))
		if err == nil {
			resp.Body.Close()
		}
		if (err == nil) != want {
			t.Errorf("a client of TLS at most %x: err %v, want it to connect: %v", version, err, want)
		}
	}
	world.WaitForStorageClass(t, "csi-manila-cso-gold", func(*storagev1.StorageClass) error { return nil })
	world.WaitForCondition(t, configcheck.ConditionDegraded, operatorv1.ConditionFalse)
	if _, err := cms.Get(ctx, operatorconfig.ConfigMapName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap %s: %v; cluster-storage-operator's content must not be migrated", operatorconfig.ConfigMapName, err)
	}
	cr, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cr.Status.Conditions {
		if strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue {
			t.Errorf("%s=True: %s", c.Type, c.Message)
		}
	}

	// cluster-storage-operator rewrites its config (a new TLS profile): the process ends, to be restarted.
	if err := os.WriteFile(configFile, []byte(strings.Replace(csoGenericOperatorConfig, "VersionTLS13", "VersionTLS12", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-run.exited:
		run.done = true
	case <-time.After(framework.DefaultTimeout):
		t.Errorf("the operator kept running %s after its --terminate-on-files file changed", framework.DefaultTimeout)
	}
}

// An unparseable GenericOperatorConfig (a broken cluster-storage-operator): the operator runs without
// it and says so, instead of exiting before it can (controllercmd's behaviour), and manages the cluster.
func TestBinaryWithUnparseableCSOConfig(t *testing.T) {
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	configFile := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(configFile, []byte("apiVersion: [\n  secretish: {\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	createShareType(t, framework.ShareTypeSpec{Name: "cso_broken"})
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinaryWith(t, operatorBinary(t), csoArgs(configFile))
	run.waitHealthy(t)
	cond := world.WaitForCondition(t, operator.ServingConfigDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, configFile) || !strings.Contains(cond.Message, "not YAML") || strings.Contains(cond.Message, "secretish") {
		t.Errorf("%s: %q, want the file named, what is wrong, and nothing of its content", cond.Type, cond.Message)
	}
	world.WaitForStorageClass(t, "csi-manila-cso-broken", func(*storagev1.StorageClass) error { return nil })
}

// csoArgs turns the manifest's args into cluster-storage-operator's: no certificate flags (the serving
// cert comes from controllercmd's fixed directory or is self-signed), its GenericOperatorConfig as
// --config, and a restart when that file changes.
func csoArgs(configFile string) func([]string) []string {
	return func(args []string) []string {
		var out []string
		for _, a := range args {
			if !strings.HasPrefix(a, "--tls-cert-file") && !strings.HasPrefix(a, "--tls-private-key-file") {
				out = append(out, a)
			}
		}
		return append(out, "--config="+configFile, "--terminate-on-files="+configFile)
	}
}
