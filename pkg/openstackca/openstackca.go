// Package openstackca finds the OpenStack CA bundle where the cluster keeps it. Its places moved:
// cloud-credential-operator and HyperShift now put it in the credentials Secret's key cacert (the
// OCPBUGS-115269 fixes), HyperShift also in that Secret's ca-bundle.pem until it drops that key, and
// before them it was only the cloud config ConfigMap's ca-bundle.pem
// (openshift-config/cloud-provider-config; hosted, HyperShift's openstack-cloud-config). The operator's
// login and the driver's secret take the one Find returns, so both trust the same CA.
package openstackca

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
)

// The credentials Secret's keys that hold the CA, newest first.
const (
	SecretCAKey       = "cacert"
	SecretLegacyCAKey = names.CABundleKey
)

// Bundle is the CA found and where: From names the object and key (never the content); empty PEM
// means no place holds one.
type Bundle struct {
	PEM  []byte
	From string
}

// Find returns the first non-empty CA of: credentials key cacert, credentials key ca-bundle.pem,
// cloudConfig key ca-bundle.pem. Either object may be nil (absent).
func Find(credentials *corev1.Secret, cloudConfig *corev1.ConfigMap) Bundle {
	if credentials != nil {
		for _, key := range []string{SecretCAKey, SecretLegacyCAKey} {
			if pem := credentials.Data[key]; len(pem) > 0 {
				return Bundle{PEM: pem, From: fmt.Sprintf("Secret %s/%s key %s", credentials.Namespace, credentials.Name, key)}
			}
		}
	}
	if cloudConfig != nil {
		if pem := cloudConfig.Data[names.CABundleKey]; pem != "" {
			return Bundle{PEM: []byte(pem), From: fmt.Sprintf("ConfigMap %s/%s key %s", cloudConfig.Namespace, cloudConfig.Name, names.CABundleKey)}
		}
	}
	return Bundle{}
}
