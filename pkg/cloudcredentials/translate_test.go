package cloudcredentials

import (
	"reflect"
	"testing"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
)

func TestDriverSecret(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		caMounted bool
		want      map[string]string
	}{
		{"password with names", `
clouds:
  openstack:
    auth: {auth_url: "https://k:5000/v3", username: u, password: p, project_name: proj, user_domain_name: Default, project_domain_name: Default}
    region_name: RegionOne
`, false, map[string]string{"os-authURL": "https://k:5000/v3", "os-region": "RegionOne", "os-userName": "u", "os-password": "p",
			"os-projectName": "proj", "os-userDomainName": "Default", "os-projectDomainName": "Default"}},
		{"ids win over names", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", user_id: uid, username: u, password: p, project_id: pid, project_name: proj, domain_id: did, domain_name: dn,
           project_domain_id: pdid, project_domain_name: pdn}
`, false, map[string]string{"os-authURL": "https://k/v3", "os-userID": "uid", "os-password": "p", "os-projectID": "pid", "os-domainID": "did",
			"os-projectDomainID": "pdid"}},
		{"explicit domain is not replaced by the user domain", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", username: u, password: p, domain_name: explicit, user_domain_name: other}
`, false, map[string]string{"os-authURL": "https://k/v3", "os-userName": "u", "os-password": "p", "os-domainName": "explicit", "os-userDomainName": "other"}},
		{"application credential", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", application_credential_id: acid, application_credential_secret: acs}
`, false, map[string]string{"os-authURL": "https://k/v3", "os-applicationCredentialID": "acid", "os-applicationCredentialSecret": "acs"}},
		{"application credential by name", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", username: u, user_domain_name: d, application_credential_name: acn, application_credential_secret: acs}
`, false, map[string]string{"os-authURL": "https://k/v3", "os-userName": "u", "os-userDomainName": "d", "os-applicationCredentialName": "acn", "os-applicationCredentialSecret": "acs"}},
		{"trust", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", user_id: trustee, password: tp, trust_id: tid}
`, false, map[string]string{"os-authURL": "https://k/v3", "os-trustID": "tid", "os-trusteeID": "trustee", "os-trusteePassword": "tp"}},
		{"verify false and cacert", `
clouds:
  openstack:
    auth: {auth_url: "https://k/v3", username: u, password: p}
    verify: false
    cacert: /somewhere/else.pem
`, true, map[string]string{"os-authURL": "https://k/v3", "os-userName": "u", "os-password": "p", "os-TLSInsecure": "true", "os-certAuthorityPath": CAPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cloud, err := openstack.ParseCloud([]byte(tt.yaml), "openstack")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for k, v := range DriverSecret(cloud, tt.caMounted) {
				got[k] = string(v)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}
