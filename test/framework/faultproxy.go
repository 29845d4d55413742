package framework

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// APIFaultProxy stands between a client and kube-apiserver and fails the requests a test names,
// answering 503 as an API server that is rolling or overloaded does, so that a fault lands exactly on
// the step under test (a read of the ClusterCSIDriver, an access review) rather than wherever a
// stopped API server happens to catch the client.
type APIFaultProxy struct {
	URL string

	ca      *TLSProxy
	mu      sync.Mutex
	refuse  map[string]bool
	refused map[string]int
}

// StartAPIFaultProxy proxies to cp's kube-apiserver until the test ends.
func StartAPIFaultProxy(t testing.TB, cp *ControlPlane) *APIFaultProxy {
	t.Helper()
	target, err := url.Parse(cp.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	// The backend trusts kube-apiserver's CA only; each request's own credentials pass through.
	transport, err := rest.TransportFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{
		CAData: cp.Config.TLSClientConfig.CAData, CAFile: cp.Config.TLSClientConfig.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	backend := httputil.NewSingleHostReverseProxy(target)
	backend.Transport = transport
	backend.FlushInterval = -1 // watches stream
	// A watch cut by a stopped API server is the client's to notice, not the proxy's to log.
	backend.ErrorLog = log.New(io.Discard, "", 0)
	p := &APIFaultProxy{ca: NewTLSCA(t), refuse: map[string]bool{}, refused: map[string]int{}}
	p.URL = p.ca.ServeHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rule, ok := p.match(r.URL.Path); ok {
			p.count(rule)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"ServiceUnavailable","message":"refused by the test's fault proxy","code":503}`))
			return
		}
		backend.ServeHTTP(w, r)
	}))
	return p
}

// Refuse fails every request whose path contains part, until Allow(part).
func (p *APIFaultProxy) Refuse(part string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse[part] = true
}

// Allow lets requests whose path contains part through again.
func (p *APIFaultProxy) Allow(part string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.refuse, part)
}

// Refused is how many requests Refuse(part) has failed so far.
func (p *APIFaultProxy) Refused(part string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused[part]
}

func (p *APIFaultProxy) match(path string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for part := range p.refuse {
		if strings.Contains(path, part) {
			return part, true
		}
	}
	return "", false
}

func (p *APIFaultProxy) count(part string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused[part]++
}

// WriteServiceAccountKubeconfig writes, at path, a kubeconfig for the ServiceAccount that reaches
// kube-apiserver through the proxy.
func (p *APIFaultProxy) WriteServiceAccountKubeconfig(ctx context.Context, cp *ControlPlane, namespace, name, path string) error {
	cfg, err := cp.ServiceAccountConfig(ctx, namespace, name)
	if err != nil {
		return err
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["world"] = &clientcmdapi.Cluster{Server: p.URL, CertificateAuthorityData: p.ca.CAPEM}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: "world", AuthInfo: name}
	kc.CurrentContext = name
	b, err := clientcmd.Write(*kc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
