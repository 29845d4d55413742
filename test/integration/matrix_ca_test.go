package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The CA bundle matrix, against Keystone over TLS: each bad bundle in openshift-config's
// cloud-provider-config is reported saying what is wrong with it, the operand's copy keeps the last
// good bundle, OpenStack stays reachable with it, and the good bundle brings everything back.
func TestCABundleMatrix(t *testing.T) {
	restoreCredentials(t)
	ctx := context.Background()
	proxy := framework.StartTLSProxy(t, fmt.Sprintf("http://127.0.0.1:%d", world.OpenStack.KeystonePort))
	expired := framework.ExpiredCAPEM(t)
	cases := []struct{ name, bundle, says string }{
		{"garbage", "not a certificate", "not a PEM certificate bundle"},
		{"trailing text", string(proxy.CAPEM) + "trailing junk", "text after its last PEM certificate"},
		{"a private key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "PEM block of type PRIVATE KEY"},
		{"only expired certificates", string(expired), "only expired certificates"},
	}
	cms := world.Kube.CoreV1().ConfigMaps(names.CloudConfigNamespace)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.CloudConfigMap, Namespace: names.CloudConfigNamespace},
		Data: map[string]string{names.CABundleKey: string(proxy.CAPEM)}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cms.Delete(context.Background(), names.CloudConfigMap, metav1.DeleteOptions{})
		_ = world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Delete(context.Background(), names.CloudCAConfigMap, metav1.DeleteOptions{})
	})
	tlsClouds := bytes.Replace(world.OpenStack.CloudsYAML(), []byte(world.OpenStack.AuthURL()), []byte(proxy.URL+"/v3"), 1)
	if err := world.WriteCloudCredentials(ctx, tlsClouds); err != nil {
		t.Fatal(err)
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	setBundle := func(bundle string) {
		framework.Eventually(t, framework.DefaultTimeout, "update the CA bundle", func(ctx context.Context) error {
			cur, err := cms.Get(ctx, names.CloudConfigMap, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Data[names.CABundleKey] = bundle
			_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
	}
	copyIsGood := func(ctx context.Context) error {
		cp, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, names.CloudCAConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cp.Data[names.CABundleKey] != string(proxy.CAPEM) {
			return fmt.Errorf("the operand's CA copy is not the last good bundle")
		}
		return nil
	}
	framework.Eventually(t, framework.DefaultTimeout, "the CA copy", copyIsGood)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setBundle(tc.bundle)
			framework.Eventually(t, framework.DefaultTimeout, "a condition saying "+tc.says, func(context.Context) error {
				c := world.Condition(t, secretsync.ConditionDegraded)
				if c == nil || c.Status != operatorv1.ConditionTrue || !strings.Contains(c.Message, tc.says) || !strings.Contains(c.Message, names.CABundleKey) {
					return fmt.Errorf("SecretSyncControllerDegraded is %+v", c)
				}
				return nil
			})
			framework.Consistently(t, 2*time.Second, "the last good copy stays", copyIsGood)
			if c := world.Condition(t, manila.ConditionDegraded); c != nil && c.Status == operatorv1.ConditionTrue {
				t.Errorf("the operator's own client lost the last good CA: %s", c.Message)
			}
			setBundle(string(proxy.CAPEM))
			world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
		})
	}

	// Removed after success (the key emptied, the ConfigMap deleted): the operator can no longer log in
	// over TLS, so the driver keeps the secret that points at the CA copy, the copy stays, and so do
	// the workloads' mounts of it: the secret and the mount change together or not at all.
	caStays := func(t *testing.T, remove, restore func()) {
		good, err := driverSecret(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(good.Data["os-certAuthorityPath"]) == 0 {
			t.Fatalf("the driver secret does not point at the CA before the removal")
		}
		if err := workloadsMountCA(ctx, true); err != nil {
			t.Fatal(err)
		}
		remove()
		framework.Eventually(t, framework.DefaultTimeout, "a failed login without the CA", func(context.Context) error {
			if c := world.Condition(t, manila.ConditionDegraded); c == nil || c.Status != operatorv1.ConditionTrue {
				return fmt.Errorf("%s is %+v", manila.ConditionDegraded, c)
			}
			return nil
		})
		framework.Consistently(t, 3*time.Second, "the driver secret, the CA copy and the mounts stay", func(ctx context.Context) error {
			s, err := driverSecret(ctx)
			if err != nil {
				return err
			}
			if s.ResourceVersion != good.ResourceVersion {
				return fmt.Errorf("the driver secret was rewritten without a verified login")
			}
			if err := copyIsGood(ctx); err != nil {
				return err
			}
			return workloadsMountCA(ctx, true)
		})
		restore()
		world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	}
	t.Run("emptied after success", func(t *testing.T) {
		caStays(t, func() { setBundle("") }, func() { setBundle(string(proxy.CAPEM)) })
	})
	t.Run("deleted after success", func(t *testing.T) {
		caStays(t, func() {
			if err := cms.Delete(ctx, names.CloudConfigMap, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	})
	// Where cloud-credential-operator puts the CA now: the credentials Secret's key cacert. With the
	// ConfigMap gone, the login, the secret's CA path, the copy and the mounts all come from it.
	t.Run("from the credentials Secret's cacert", func(t *testing.T) {
		if err := world.WriteSecret(ctx, names.OperatorNamespace, names.CloudCredentialsSecret, map[string][]byte{names.CloudsYAMLKey: tlsClouds, "cacert": proxy.CAPEM}); err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, names.CloudConfigMap, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
		framework.Consistently(t, 3*time.Second, "the CA in force, from the Secret", func(ctx context.Context) error {
			if c := world.Condition(t, manila.ConditionDegraded); c != nil && c.Status == operatorv1.ConditionTrue {
				return fmt.Errorf("the operator cannot log in with the Secret's CA: %s", c.Message)
			}
			s, err := driverSecret(ctx)
			if err != nil {
				return err
			}
			if len(s.Data["os-certAuthorityPath"]) == 0 {
				return fmt.Errorf("the driver secret does not point at the CA")
			}
			if err := copyIsGood(ctx); err != nil {
				return err
			}
			return workloadsMountCA(ctx, true)
		})
	})
}

// workloadsMountCA checks that the controller Deployment and the node DaemonSet mount (or not) the
// OpenStack CA copy.
func workloadsMountCA(ctx context.Context, want bool) error {
	d, err := world.Kube.AppsV1().Deployments(names.OperandNamespace).Get(ctx, framework.ControllerDeployment, metav1.GetOptions{})
	if err != nil {
		return err
	}
	ds, err := world.Kube.AppsV1().DaemonSets(names.OperandNamespace).Get(ctx, framework.NodeDaemonSet, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for what, spec := range map[string]corev1.PodSpec{"Deployment " + d.Name: d.Spec.Template.Spec, "DaemonSet " + ds.Name: ds.Spec.Template.Spec} {
		mounted := false
		for _, v := range spec.Volumes {
			mounted = mounted || v.Name == "openstack-ca"
		}
		if mounted != want {
			return fmt.Errorf("%s mounts the OpenStack CA: %v, want %v", what, mounted, want)
		}
	}
	return nil
}
