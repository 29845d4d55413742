package openstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gophercloud/utils/v2/openstack/clientconfig"
)

func testCA(t *testing.T) []byte {
	t.Helper()
	return testCAValidUntil(t, time.Now().Add(time.Hour))
}

func testCAValidUntil(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: notAfter.Add(-2 * time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestTLSConfigFor(t *testing.T) {
	ca := testCA(t)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	junkFile := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junkFile, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	no := false
	tests := []struct {
		name         string
		cloud        clientconfig.Cloud
		bundle       []byte
		wantErr      bool
		wantInsecure bool
		wantCustom   bool
	}{
		{name: "system roots", cloud: clientconfig.Cloud{}},
		{name: "verify false", cloud: clientconfig.Cloud{Verify: &no}, bundle: ca, wantInsecure: true},
		{name: "bundle", bundle: ca, wantCustom: true},
		{name: "cacert file", cloud: clientconfig.Cloud{CACertFile: caFile}, wantCustom: true},
		{name: "cacert path absent in this pod", cloud: clientconfig.Cloud{CACertFile: filepath.Join(dir, "absent.pem")}},
		{name: "cacert not PEM", cloud: clientconfig.Cloud{CACertFile: junkFile}, wantErr: true},
		{name: "bundle not PEM", bundle: []byte("garbage"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := tlsConfigFor(&tt.cloud, tt.bundle)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.InsecureSkipVerify != tt.wantInsecure {
				t.Errorf("InsecureSkipVerify = %v", cfg.InsecureSkipVerify)
			}
			if (cfg.RootCAs != nil) != tt.wantCustom {
				t.Errorf("custom RootCAs = %v, want %v", cfg.RootCAs != nil, tt.wantCustom)
			}
		})
	}
}

func TestValidCABundle(t *testing.T) {
	ca := testCA(t)
	tests := []struct {
		name string
		data []byte
		want bool
	}{
		{"one certificate", ca, true},
		{"two certificates", append(append([]byte{}, ca...), ca...), true},
		{"empty", nil, false},
		{"garbage", []byte("not a certificate"), false},
		{"trailing garbage", append(append([]byte{}, ca...), []byte("junk")...), false},
		{"a key, not a certificate", []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), false},
		{"expired", testCAValidUntil(t, time.Now().Add(-time.Minute)), false},
		{"one expired, one valid", append(testCAValidUntil(t, time.Now().Add(-time.Minute)), ca...), true},
	}
	for _, tt := range tests {
		if got := ValidCABundle(tt.data); got != tt.want {
			t.Errorf("%s: ValidCABundle = %v, want %v", tt.name, got, tt.want)
		}
	}
}
