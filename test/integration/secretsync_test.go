package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/cloudcredentials"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

func driverSecret(ctx context.Context) (*corev1.Secret, error) {
	return world.Kube.CoreV1().Secrets(names.OperandNamespace).Get(ctx, names.DriverSecret, metav1.GetOptions{})
}

func waitDriverSecret(t *testing.T, what string, check func(map[string][]byte) error) *corev1.Secret {
	t.Helper()
	var got *corev1.Secret
	framework.Eventually(t, framework.DefaultTimeout, "driver secret: "+what, func(ctx context.Context) error {
		s, err := driverSecret(ctx)
		if err != nil {
			return err
		}
		got = s
		return check(s.Data)
	})
	return got
}

func restoreCredentials(t *testing.T) {
	t.Cleanup(func() {
		if err := world.WriteCloudCredentials(context.Background(), world.OpenStack.CloudsYAML()); err != nil {
			t.Errorf("restoring the credentials: %v", err)
		}
	})
}

// The driver secret carries the clouds.yaml keys the driver reads; a rotated password that logs in
// reaches it and rolls the controller and node pods; one that Keystone refuses is InvalidCredentials at
// once and the driver keeps the last good secret; malformed credentials are reported by field and
// change nothing.
func TestDriverSecretSyncAndRotation(t *testing.T) {
	restoreCredentials(t)
	ctx := context.Background()
	user := fmt.Sprintf("rotator-%d", time.Now().UnixNano())
	clouds, err := world.OpenStack.CreateProjectUser(ctx, user, "first-password", "admin")
	if err != nil {
		t.Fatal(err)
	}
	if err := world.WriteCloudCredentials(ctx, clouds); err != nil {
		t.Fatal(err)
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})

	want := map[string]string{"os-authURL": world.OpenStack.AuthURL(), "os-userName": user, "os-password": "first-password",
		"os-projectName": "admin", "os-userDomainName": "Default", "os-projectDomainName": "Default", "os-region": framework.Region}
	waitDriverSecret(t, "initial keys", func(data map[string][]byte) error {
		for k, v := range want {
			if string(data[k]) != v {
				return fmt.Errorf("%s = %q, want %q", k, data[k], v)
			}
		}
		if len(data) != len(want) {
			return fmt.Errorf("%d keys, want %d", len(data), len(want))
		}
		return nil
	})
	dep, node, _ := settledWorkloads(t)

	if err := world.OpenStack.SetUserPassword(ctx, user, "rotated-password"); err != nil {
		t.Fatal(err)
	}
	rotated := bytes.Replace(clouds, []byte("first-password"), []byte("rotated-password"), 1)
	if err := world.WriteCloudCredentials(context.Background(), rotated); err != nil {
		t.Fatal(err)
	}
	waitDriverSecret(t, "rotated password", func(data map[string][]byte) error {
		if string(data["os-password"]) != "rotated-password" {
			return fmt.Errorf("os-password not rotated yet")
		}
		return nil
	})
	world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		if templateAnnotationsEqual(d.Spec.Template.Annotations, dep.Spec.Template.Annotations) {
			return fmt.Errorf("controller pod template not rolled")
		}
		return nil
	})
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		if templateAnnotationsEqual(ds.Spec.Template.Annotations, node.Spec.Template.Annotations) {
			return fmt.Errorf("node pod template not rolled")
		}
		return nil
	})

	good, err := driverSecret(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wrong := bytes.Replace(clouds, []byte("first-password"), []byte("wrong-password"), 1)
	if err := world.WriteCloudCredentials(ctx, wrong); err != nil {
		t.Fatal(err)
	}
	refused := world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionTrue)
	if refused.Reason != manila.ReasonInvalidCredentials || !strings.Contains(refused.Message, "401") || strings.Contains(refused.Message, "wrong-password") {
		t.Errorf("a refused password: Degraded %s %q, want InvalidCredentials saying 401 and never the password", refused.Reason, refused.Message)
	}
	framework.Consistently(t, 6*time.Second, "the driver keeps the last good secret (a poll and more)", func(ctx context.Context) error {
		s, err := driverSecret(ctx)
		if err != nil {
			return err
		}
		if s.ResourceVersion != good.ResourceVersion {
			return fmt.Errorf("the driver secret received credentials that do not log in")
		}
		return nil
	})

	if err := world.WriteCloudCredentials(context.Background(), []byte("clouds:\n  openstack:\n    auth:\n      username: u\n      password: pw-never-shown\n")); err != nil {
		t.Fatal(err)
	}
	cond := world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, "clouds.openstack.auth.auth_url") || strings.Contains(cond.Message, "pw-never-shown") {
		t.Errorf("condition %q should name auth_url and never the password", cond.Message)
	}
	framework.Consistently(t, 2*time.Second, "the driver secret keeps its last good content", func(ctx context.Context) error {
		s, err := driverSecret(ctx)
		if err != nil {
			return err
		}
		if s.ResourceVersion != good.ResourceVersion {
			return fmt.Errorf("the driver secret was rewritten from bad input")
		}
		return nil
	})
}

func templateAnnotationsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A missing credentials secret is Degraded after the grace period, naming the secret; the driver
// secret stays.
func TestMissingCredentialsSecret(t *testing.T) {
	restoreCredentials(t)
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	waitDriverSecret(t, "present", func(map[string][]byte) error { return nil })
	world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)

	if err := world.Kube.CoreV1().Secrets(names.OperatorNamespace).Delete(context.Background(), names.CloudCredentialsSecret, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The grace both ways: not Degraded within it (3 s in tests, from when the absence is seen) ...
	framework.Consistently(t, 2*time.Second, "no Degraded within the grace period", func(context.Context) error {
		if c := world.Condition(t, secretsync.ConditionDegraded); c != nil && c.Status == operatorv1.ConditionTrue {
			return fmt.Errorf("Degraded before the grace period ended: %s", c.Message)
		}
		return nil
	})
	// ... and Degraded after it.
	cond := world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(cond.Message, names.OperatorNamespace+"/"+names.CloudCredentialsSecret) {
		t.Errorf("condition %q does not name the secret", cond.Message)
	}
	if _, err := driverSecret(context.Background()); err != nil {
		t.Errorf("the driver secret is gone: %v", err)
	}
}

// Keystone served over TLS with a CA the test generates: without the CA the operator reports (as not
// reached yet: Manila was never found) a clear TLS error; with it in openshift-config/cloud-provider-config it succeeds, copies the CA to the
// operand namespace, points the driver at it and mounts it into the driver pods. A CA that is not PEM
// is reported and the last good copy stays.
func TestOpenStackCAChain(t *testing.T) {
	world.OperandPodsReady(t) // Disabled goes only once the driver is Available
	restoreCredentials(t)
	ctx := context.Background()
	proxy := framework.StartTLSProxy(t, fmt.Sprintf("http://127.0.0.1:%d", world.OpenStack.KeystonePort))
	tlsClouds := bytes.Replace(world.OpenStack.CloudsYAML(), []byte(world.OpenStack.AuthURL()), []byte(proxy.URL+"/v3"), 1)
	if err := world.WriteCloudCredentials(ctx, tlsClouds); err != nil {
		t.Fatal(err)
	}
	cms := world.Kube.CoreV1().ConfigMaps(names.CloudConfigNamespace)
	t.Cleanup(func() {
		_ = cms.Delete(context.Background(), names.CloudConfigMap, metav1.DeleteOptions{})
		_ = world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Delete(context.Background(), names.CloudCAConfigMap, metav1.DeleteOptions{})
	})
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})

	// Before Manila was ever found, a poll that fails reads as a driver not installed yet, with why.
	cond := world.WaitForCondition(t, manila.ConditionDisabled, operatorv1.ConditionTrue)
	if cond.Reason != manila.ReasonManilaNotReached || !strings.Contains(cond.Message, "certificate") {
		t.Errorf("without the CA: Disabled %s %q, want %s saying it is a certificate problem", cond.Reason, cond.Message, manila.ReasonManilaNotReached)
	}

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: names.CloudConfigMap, Namespace: names.CloudConfigNamespace},
		Data: map[string]string{names.CABundleKey: string(proxy.CAPEM), "config": "[Global]\n"}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	world.WaitForNoCondition(t, manila.ConditionDisabled)
	waitDriverSecret(t, "CA path and TLS auth URL", func(data map[string][]byte) error {
		if string(data["os-certAuthorityPath"]) != cloudcredentials.CAPath || string(data["os-authURL"]) != proxy.URL+"/v3" {
			return fmt.Errorf("os-certAuthorityPath %q, os-authURL %q", data["os-certAuthorityPath"], data["os-authURL"])
		}
		return nil
	})
	caDir := cloudcredentials.CAPath[:strings.LastIndex(cloudcredentials.CAPath, "/")]
	world.WaitForDeployment(t, func(d *appsv1.Deployment) error {
		return wantMounts(d.Spec.Template.Spec, map[string]string{"openstack-ca": caDir})
	})
	world.WaitForDaemonSet(t, framework.NodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, map[string]string{"openstack-ca": caDir})
	})
	world.WaitForDaemonSet(t, framework.NFSNodeDaemonSet, func(ds *appsv1.DaemonSet) error {
		return wantMounts(ds.Spec.Template.Spec, nil, "openstack-ca")
	})

	framework.Eventually(t, framework.DefaultTimeout, "update the CA to garbage", func(ctx context.Context) error {
		cur, err := cms.Get(ctx, names.CloudConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Data[names.CABundleKey] = "not a certificate"
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	bad := world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionTrue)
	if !strings.Contains(bad.Message, names.CABundleKey) {
		t.Errorf("condition %q does not name the key", bad.Message)
	}
	framework.Consistently(t, 2*time.Second, "the last good CA copy stays", func(ctx context.Context) error {
		cp, err := world.Kube.CoreV1().ConfigMaps(names.OperandNamespace).Get(ctx, names.CloudCAConfigMap, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return fmt.Errorf("the copy is gone")
		} else if err != nil {
			return err
		}
		if cp.Data[names.CABundleKey] != string(proxy.CAPEM) {
			return fmt.Errorf("the copy changed")
		}
		return nil
	})
}

// An application credential (what the cloud-credential-operator may hand out) logs in, finds Manila
// and reaches the driver secret as the driver's application-credential keys, and nothing else.
func TestApplicationCredentialReachesTheDriver(t *testing.T) {
	restoreCredentials(t)
	cred := world.OpenStack.AppCredential
	if err := world.WriteCloudCredentials(context.Background(), world.OpenStack.CloudsYAMLAppCredential(cred)); err != nil {
		t.Fatal(err)
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "appcred"})
	world.WaitForStorageClass(t, "csi-manila-appcred", nil)
	want := map[string]string{"os-authURL": world.OpenStack.AuthURL(), "os-applicationCredentialID": cred.ID,
		"os-applicationCredentialSecret": cred.Secret, "os-region": framework.Region}
	waitDriverSecret(t, "application credential keys", func(data map[string][]byte) error {
		for k, v := range want {
			if string(data[k]) != v {
				return fmt.Errorf("%s is not the application credential's", k)
			}
		}
		if len(data) != len(want) {
			var keys []string
			for k := range data {
				keys = append(keys, k)
			}
			return fmt.Errorf("keys %v, want only %d", keys, len(want))
		}
		return nil
	})
}
