package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/secretsync"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The clouds.yaml matrix: each bad input, written into the credentials Secret of a running operator,
// is reported by a Degraded condition naming the field (never a value), the driver keeps its last
// good secret, the operator keeps running, and the good input brings everything back.
func TestCloudsYAMLMatrix(t *testing.T) {
	restoreCredentials(t)
	good := world.OpenStack.CloudsYAML()
	pw := world.OpenStack.AdminPassword
	replace := func(old, new string) string { return string(bytes.Replace(good, []byte(old), []byte(new), 1)) }
	auth := func(fields string) string {
		return "clouds:\n  openstack:\n    auth: {" + fields + "}\n    region_name: " + framework.Region + "\n"
	}
	url := world.OpenStack.AuthURL()
	secrets := world.Kube.CoreV1().Secrets(names.OperatorNamespace)
	deleteSecret := func(ctx context.Context) error {
		return secrets.Delete(ctx, names.CloudCredentialsSecret, metav1.DeleteOptions{})
	}
	renameKey := func(ctx context.Context) error {
		s, err := secrets.Get(ctx, names.CloudCredentialsSecret, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s.Data = map[string][]byte{"clouds.yml": s.Data[names.CloudsYAMLKey]}
		_, err = secrets.Update(ctx, s, metav1.UpdateOptions{})
		return err
	}
	cases := []struct {
		name, clouds, field string
		write               func(ctx context.Context) error // instead of writing clouds
	}{
		{name: "the Secret deleted, then created again", field: names.CloudCredentialsSecret, write: deleteSecret},
		{name: "the Secret without the clouds.yaml key", field: `"` + names.CloudsYAMLKey + `"`, write: renameKey},
		{name: "not YAML", clouds: "clouds: [\n  - " + pw + ": :", field: "clouds"},
		{name: "no clouds", clouds: "other: 1\n", field: "clouds"},
		{name: "another cloud only", clouds: strings.Replace(string(good), "  openstack:", "  devstack:", 1), field: "clouds.openstack"},
		{name: "several clouds, not ours", clouds: string(good) + "  extra:\n    auth: {auth_url: " + url + "}\n" + "", field: ""},
		{name: "no auth", clouds: "clouds:\n  openstack:\n    region_name: r\n", field: "clouds.openstack.auth"},
		{name: "auth of the wrong type", clouds: "clouds:\n  openstack:\n    auth: " + pw + "\n", field: "clouds"},
		{name: "no auth_url", clouds: auth("username: admin, password: " + pw), field: "auth_url"},
		{name: "auth_url not a URL", clouds: auth("auth_url: keystone, username: admin, password: " + pw + ", project_name: admin"), field: "auth_url"},
		{name: "auth_url of another scheme", clouds: auth("auth_url: 'ftp://127.0.0.1/v3', username: admin, password: " + pw + ", project_name: admin"), field: "auth_url"},
		{name: "no credential", clouds: auth("auth_url: " + url + ", username: admin, project_name: admin"), field: "password"},
		{name: "password without user", clouds: auth("auth_url: " + url + ", password: " + pw + ", project_name: admin"), field: "username"},
		{name: "application credential secret without id", clouds: auth("auth_url: " + url + ", application_credential_secret: " + pw), field: "application_credential_id"},
		{name: "token only", clouds: auth("auth_url: " + url + ", token: " + pw), field: "token"},
		{name: "user_id with a user domain", clouds: auth("auth_url: " + url + ", user_id: abc, user_domain_name: Default, password: " + pw), field: "user_domain_name"},
		{name: "a region without Manila", clouds: replace("region_name: "+framework.Region, "region_name: RegionTwo"), field: "region_name"},
		{name: "a wrong password", clouds: replace(pw, pw+"-wrong"), field: "401"},
		{name: "YAML-special characters in a wrong password", clouds: replace(pw, `'`+pw+`: "#&*x'`), field: "401"},
		{name: "an application credential with a wrong secret", clouds: string(world.OpenStack.CloudsYAMLAppCredential(
			framework.AppCredential{ID: world.OpenStack.AppCredential.ID, Secret: world.OpenStack.AppCredential.Secret + "-wrong"})), field: "401"},
		{name: "an alias bomb", clouds: "pad: &p [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nmore: [" + strings.Repeat("*p,", 300) + "*p]\n" + string(good), field: "expands"},
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	last := waitDriverSecret(t, "the driver secret", func(map[string][]byte) error { return nil })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			write := tc.write
			if write == nil {
				write = func(ctx context.Context) error { return world.WriteCloudCredentials(ctx, []byte(tc.clouds)) }
			}
			if err := write(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.field == "" { // a valid variation: nothing to report
				world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
			} else {
				framework.Eventually(t, framework.DefaultTimeout, "a condition naming "+tc.field, func(ctx context.Context) error {
					d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
					if err != nil {
						return err
					}
					for _, typ := range []string{manila.ConditionDegraded, secretsync.ConditionDegraded} {
						c := v1helpers.FindOperatorCondition(d.Status.Conditions, typ)
						if c != nil && c.Status == operatorv1.ConditionTrue && strings.Contains(c.Message, tc.field) {
							for _, secret := range world.OpenStack.Sentinels() {
								if strings.Contains(c.Message, secret) {
									t.Fatalf("%s shows a secret: %s", typ, framework.RedactSentinel(c.Message, secret))
								}
							}
							return nil
						}
					}
					return fmt.Errorf("no Degraded condition names %s", tc.field)
				})
				if c := world.Condition(t, manila.ConditionDisabled); c != nil {
					t.Errorf("bad credentials set %s (%s)", manila.ConditionDisabled, c.Reason)
				}
			}
			s, err := driverSecret(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.field != "" && s.ResourceVersion != last.ResourceVersion {
				t.Errorf("the driver secret was rewritten from bad input")
			}
			if err := world.WriteCloudCredentials(ctx, good); err != nil {
				t.Fatal(err)
			}
			world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
			world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
			if s, err := driverSecret(ctx); err == nil {
				last = s
			}
		})
	}
}

// Risky but working credentials: each is reported by a Warning event naming the Secret and the
// field, and by the message of SecretSyncControllerDegraded, which stays False; the cloud stays in
// use (the driver gets it) and the warning goes when the credentials are fixed.
func TestCloudsYAMLWarnings(t *testing.T) {
	restoreCredentials(t)
	good := string(world.OpenStack.CloudsYAML())
	const cloudLine = "  " + names.CloudName + ":\n"
	if !strings.Contains(good, cloudLine) {
		t.Fatalf("the world's clouds.yaml has no %q line:\n%s", cloudLine, framework.RedactSentinel(good, world.OpenStack.AdminPassword))
	}
	cases := []struct {
		name, clouds, field string
		driverKey, value    string
	}{
		{name: "verify: false", clouds: strings.Replace(good, cloudLine, cloudLine+"    verify: false\n", 1),
			field: "clouds.openstack.verify: false", driverKey: "os-TLSInsecure", value: "true"},
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	world.WaitForCondition(t, secretsync.ConditionDegraded, operatorv1.ConditionFalse)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if err := world.WriteCloudCredentials(ctx, []byte(tc.clouds)); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("Secret %s/%s key %s sets %s", names.OperatorNamespace, names.CloudCredentialsSecret, names.CloudsYAMLKey, tc.field)
			waitForEvent(t, secretsync.ReasonInsecureTLS, want)
			waitSecretSyncReason(t, secretsync.ReasonInsecureTLS, want)
			waitDriverSecret(t, "the risky cloud in use", func(data map[string][]byte) error {
				if string(data[tc.driverKey]) != tc.value {
					return fmt.Errorf("%s = %q, want %q", tc.driverKey, data[tc.driverKey], tc.value)
				}
				return nil
			})
			world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)

			if err := world.WriteCloudCredentials(ctx, []byte(good)); err != nil {
				t.Fatal(err)
			}
			waitSecretSyncReason(t, secretsync.ReasonAsExpected, "")
		})
	}
}

// waitSecretSyncReason waits for SecretSyncControllerDegraded=False with the reason and a message
// containing the text.
func waitSecretSyncReason(t *testing.T, reason, contains string) {
	t.Helper()
	framework.Eventually(t, framework.DefaultTimeout, secretsync.ConditionDegraded+" "+reason, func(ctx context.Context) error {
		d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := v1helpers.FindOperatorCondition(d.Status.Conditions, secretsync.ConditionDegraded)
		if c == nil || c.Status != operatorv1.ConditionFalse || c.Reason != reason || !strings.Contains(c.Message, contains) {
			return fmt.Errorf("%s is %+v, want False, %s, a message with %q", secretsync.ConditionDegraded, c, reason, contains)
		}
		return nil
	})
}
