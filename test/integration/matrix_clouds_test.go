package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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
	cases := []struct {
		name, clouds, field string
	}{
		{"not YAML", "clouds: [\n  - " + pw + ": :", "clouds"},
		{"no clouds", "other: 1\n", "clouds"},
		{"another cloud only", strings.Replace(string(good), "  openstack:", "  devstack:", 1), "clouds.openstack"},
		{"several clouds, not ours", string(good) + "  extra:\n    auth: {auth_url: " + url + "}\n" + "", ""},
		{"no auth", "clouds:\n  openstack:\n    region_name: r\n", "clouds.openstack.auth"},
		{"auth of the wrong type", "clouds:\n  openstack:\n    auth: " + pw + "\n", "clouds"},
		{"no auth_url", auth("username: admin, password: " + pw), "auth_url"},
		{"auth_url not a URL", auth("auth_url: keystone, username: admin, password: " + pw + ", project_name: admin"), "auth_url"},
		{"auth_url of another scheme", auth("auth_url: 'ftp://127.0.0.1/v3', username: admin, password: " + pw + ", project_name: admin"), "auth_url"},
		{"no credential", auth("auth_url: " + url + ", username: admin, project_name: admin"), "password"},
		{"password without user", auth("auth_url: " + url + ", password: " + pw + ", project_name: admin"), "username"},
		{"application credential secret without id", auth("auth_url: " + url + ", application_credential_secret: " + pw), "application_credential_id"},
		{"token only", auth("auth_url: " + url + ", token: " + pw), "token"},
		{"user_id with a user domain", auth("auth_url: " + url + ", user_id: abc, user_domain_name: Default, password: " + pw), "user_domain_name"},
		{"a region without Manila", replace("region_name: "+framework.Region, "region_name: RegionTwo"), "region_name"},
		{"a wrong password", replace(pw, pw+"-wrong"), "401"},
		{"YAML-special characters in a wrong password", replace(pw, `'`+pw+`: "#&*x'`), "401"},
		{"an alias bomb", "pad: &p [" + strings.Repeat("xxxxxxxxxx,", 1000) + "x]\nmore: [" + strings.Repeat("*p,", 300) + "*p]\n" + string(good), "expands"},
	}
	startOperator(t, "", framework.ShareTypeSpec{Name: "default"})
	world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
	last := waitDriverSecret(t, "the driver secret", func(map[string][]byte) error { return nil })
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if err := world.WriteCloudCredentials(ctx, []byte(tc.clouds)); err != nil {
				t.Fatal(err)
			}
			if tc.field == "" { // a valid variation: nothing to report
				world.WaitForCondition(t, manila.ConditionDegraded, operatorv1.ConditionFalse)
			} else {
				framework.Eventually(t, 20*time.Second, "a condition naming "+tc.field, func(ctx context.Context) error {
					d, err := world.Operator.OperatorV1().ClusterCSIDrivers().Get(ctx, names.CSIDriverName, metav1.GetOptions{})
					if err != nil {
						return err
					}
					for _, typ := range []string{manila.ConditionDegraded, secretsync.ConditionDegraded} {
						c := v1helpers.FindOperatorCondition(d.Status.Conditions, typ)
						if c != nil && c.Status == operatorv1.ConditionTrue && strings.Contains(c.Message, tc.field) {
							if strings.Contains(c.Message, pw) {
								t.Fatalf("%s shows the password: %s", typ, framework.RedactSentinel(c.Message, pw))
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
