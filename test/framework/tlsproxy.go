package framework

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"
)

// TLSProxy serves a plain-HTTP backend over TLS on 127.0.0.1, with a certificate signed by a CA it
// generates, e.g. Keystone "served over TLS" for CA-chain tests. Serve puts more backends behind TLS
// with the same CA, as one private CA signs all of a cloud's endpoints.
type TLSProxy struct {
	URL   string // https://127.0.0.1:port
	CAPEM []byte

	caKey  *ecdsa.PrivateKey
	caCert *x509.Certificate
}

// StartTLSProxy proxies to backend until the test ends.
func StartTLSProxy(t testing.TB, backend string) *TLSProxy {
	t.Helper()
	p := NewTLSCA(t)
	p.URL = p.Serve(t, backend)
	return p
}

// NewTLSCA returns a TLSProxy that serves nothing yet: its CA, for Serve and ServeHandler.
func NewTLSCA(t testing.TB) *TLSProxy {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "manila-test-openstack-ca"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	return &TLSProxy{CAPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), caKey: caKey, caCert: caCert}
}

// Serve proxies to another backend over TLS, with a serving certificate of the same CA, until the
// test ends, and returns its https:// URL.
func (p *TLSProxy) Serve(t testing.TB, backend string) string {
	t.Helper()
	target, err := url.Parse(backend)
	if err != nil {
		t.Fatal(err)
	}
	return p.ServeHandler(t, httputil.NewSingleHostReverseProxy(target))
}

// ServeHandler serves handler over TLS, with a serving certificate of the CA, until the test ends,
// and returns its https:// URL.
func (p *TLSProxy) ServeHandler(t testing.TB, handler http.Handler) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "openstack"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{
		Handler:   handler,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12},
		ErrorLog:  nil,
	}
	go func() { _ = server.ServeTLS(listener, "", "") }()
	t.Cleanup(func() { _ = server.Close() })
	return "https://" + listener.Addr().String()
}

// ExpiredCAPEM returns a self-signed CA certificate that expired an hour ago.
func ExpiredCAPEM(t testing.TB) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "manila-test-expired-ca"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
