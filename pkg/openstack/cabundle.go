package openstack

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
)

// ValidCABundle reports whether data is one or more PEM certificates and nothing else.
func ValidCABundle(data []byte) bool {
	found := false
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			return found && len(bytes.TrimSpace(data)) == 0
		}
		if block.Type != "CERTIFICATE" {
			return false
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return false
		}
		found, data = true, rest
	}
}
