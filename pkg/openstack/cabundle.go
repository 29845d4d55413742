package openstack

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"time"
)

// CABundleProblem says what is wrong with a CA bundle, or "" when it is one or more PEM certificates,
// nothing else, and not all of them expired. It never quotes the data.
func CABundleProblem(data []byte, now time.Time) string {
	var certs []*x509.Certificate
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			if len(bytes.TrimSpace(data)) > 0 {
				if len(certs) == 0 {
					return "is not a PEM certificate bundle"
				}
				return "has text after its last PEM certificate"
			}
			break
		}
		if block.Type != "CERTIFICATE" {
			return "holds a PEM block of type " + block.Type + ", not a certificate"
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return "holds a PEM certificate that does not parse"
		}
		certs, data = append(certs, cert), rest
	}
	if len(certs) == 0 {
		return "holds no PEM certificate"
	}
	for _, c := range certs {
		if now.Before(c.NotAfter) {
			return ""
		}
	}
	return "holds only expired certificates"
}

// ValidCABundle reports whether data is a usable CA bundle now (see CABundleProblem).
func ValidCABundle(data []byte) bool {
	return CABundleProblem(data, time.Now()) == ""
}
