package guestkubeconfig

import (
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// server answers /version with its name to the one token it accepts, 401 otherwise.
func server(t *testing.T, name, token string) *httptest.Server {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"major":"1","minor":"36","gitVersion":%q}`, name)
	}))
	t.Cleanup(s.Close)
	return s
}

// kubeconfig names s with its CA: clientcmd sends credentials over TLS only.
func kubeconfig(s *httptest.Server, token string) string {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: guest
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: op
  user:
    token: %s
contexts:
- name: guest
  context: {cluster: guest, user: op}
current-context: guest
`, s.URL, base64.StdEncoding.EncodeToString(ca), token)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	// As the kubelet updates a Secret volume: a new file swapped in, never a half-written one.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestFileFollowsRotation(t *testing.T) {
	first, second := server(t, "first", "token-one"), server(t, "second", "token-two")
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Load of a missing file: %v, want 'does not exist'", err)
	}
	write(t, path, kubeconfig(first, "token-one"))
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(f.Config())
	version := func() string {
		t.Helper()
		v, err := client.Discovery().ServerVersion()
		if err != nil {
			return "error: " + err.Error()
		}
		return v.GitVersion
	}
	if got := version(); got != "first" {
		t.Fatalf("before rotation: %s, want first", got)
	}

	// Unchanged: nothing to do.
	if changed, err := f.Reload(); changed || err != nil {
		t.Errorf("Reload of the same content: changed %v, %v", changed, err)
	}
	// Rotated to new credentials on another server: the client built before follows.
	write(t, path, kubeconfig(second, "token-two"))
	if changed, err := f.Reload(); !changed || err != nil {
		t.Fatalf("Reload after rotation: changed %v, %v", changed, err)
	}
	if got := version(); got != "second" {
		t.Errorf("after rotation: %s, want second", got)
	}
	if f.Server() != second.URL {
		t.Errorf("Server() %s, want %s", f.Server(), second.URL)
	}

	// Broken content or a missing file: reported, and the last good one stays in use.
	for name, breakIt := range map[string]func(){
		"garbage": func() { write(t, path, "clusters: [") },
		"no server": func() {
			write(t, path, strings.Replace(kubeconfig(second, "token-three"), "server: "+second.URL, "server: ''", 1))
		},
		"missing": func() { os.Remove(path) },
	} {
		breakIt()
		changed, err := f.Reload()
		if changed || err == nil {
			t.Errorf("%s: Reload changed %v, err %v: want an error and no change", name, changed, err)
		}
		if err != nil && strings.Contains(err.Error(), "token-") {
			t.Errorf("%s: the error quotes a token: %v", name, err)
		}
		if got := version(); got != "second" {
			t.Errorf("%s: %s, want second (the last good kubeconfig)", name, got)
		}
	}
}

func TestConfigCarriesNoCredentials(t *testing.T) {
	s := server(t, "only", "secret-token")
	path := filepath.Join(t.TempDir(), "kubeconfig")
	write(t, path, kubeconfig(s, "secret-token"))
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := f.Config(); cfg.BearerToken != "" || cfg.BearerTokenFile != "" || strings.Contains(cfg.String(), "secret-token") {
		t.Errorf("Config() exposes the credentials: %s", cfg.String())
	}
	if _, err := kubernetes.NewForConfigOrDie(f.Config()).Discovery().ServerVersion(); err != nil {
		t.Errorf("a request through Config(): %v", err)
	}
}
