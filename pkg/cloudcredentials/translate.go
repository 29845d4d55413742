// Package cloudcredentials turns the cloud-credential-operator's clouds.yaml into the keys the Manila
// CSI driver reads from its secret.
package cloudcredentials

import (
	"github.com/gophercloud/utils/v2/openstack/clientconfig"
)

// CAPath is where the operand mounts the OpenStack CA bundle; CAPathKey is the driver secret's key
// that points the driver at it.
const (
	CAPath    = "/etc/kubernetes/static-pod-resources/configmaps/cloud-config/ca-bundle.pem"
	CAPathKey = "os-certAuthorityPath"
)

// DriverSecret maps a parsed cloud to the driver secret's data. caMounted says whether the operand
// mounts an OpenStack CA bundle at CAPath. Each key is set only from its own source: an explicit
// domain is never replaced by the user's domain (the predecessor did).
func DriverSecret(cloud *clientconfig.Cloud, caMounted bool) map[string][]byte {
	a := cloud.AuthInfo
	out := map[string][]byte{}
	set := func(key, value string) {
		if value != "" {
			out[key] = []byte(value)
		}
	}
	either := func(idKey, id, nameKey, name string) {
		if id != "" {
			set(idKey, id)
		} else {
			set(nameKey, name)
		}
	}
	set("os-authURL", a.AuthURL)
	set("os-region", cloud.RegionName)
	if a.TrustID != "" {
		// With a trust, the user is the trustee.
		set("os-trustID", a.TrustID)
		set("os-trusteeID", a.UserID)
		set("os-trusteePassword", a.Password)
	} else {
		either("os-userID", a.UserID, "os-userName", a.Username)
		set("os-password", a.Password)
	}
	set("os-applicationCredentialID", a.ApplicationCredentialID)
	set("os-applicationCredentialName", a.ApplicationCredentialName)
	set("os-applicationCredentialSecret", a.ApplicationCredentialSecret)
	either("os-projectID", a.ProjectID, "os-projectName", a.ProjectName)
	either("os-domainID", a.DomainID, "os-domainName", a.DomainName)
	either("os-projectDomainID", a.ProjectDomainID, "os-projectDomainName", a.ProjectDomainName)
	either("os-userDomainID", a.UserDomainID, "os-userDomainName", a.UserDomainName)
	if caMounted {
		set(CAPathKey, CAPath)
	}
	if cloud.Verify != nil && !*cloud.Verify {
		set("os-TLSInsecure", "true")
	}
	return out
}
