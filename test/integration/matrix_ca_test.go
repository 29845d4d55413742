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
			framework.Eventually(t, 20*time.Second, "a condition saying "+tc.says, func(context.Context) error {
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

	// Removed after success: the operator can no longer log in over TLS, so the driver keeps the
	// secret that points at the CA copy, and the copy stays.
	t.Run("removed after success", func(t *testing.T) {
		good, err := driverSecret(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(good.Data["os-certAuthorityPath"]) == 0 {
			t.Fatalf("the driver secret does not point at the CA before the removal")
		}
		setBundle("")
		framework.Consistently(t, 6*time.Second, "the driver secret and the CA copy stay (a poll and more)", func(ctx context.Context) error {
			s, err := driverSecret(ctx)
			if err != nil {
				return err
			}
			if s.ResourceVersion != good.ResourceVersion {
				return fmt.Errorf("the driver secret was rewritten without a verified login")
			}
			return copyIsGood(ctx)
		})
		setBundle(string(proxy.CAPEM))
		world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	})
}
