package framework

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// proxiedClient returns a client that sends everything through proxy.
func proxiedClient(t *testing.T, proxy *ForwardProxy, tlsConfig *tls.Config) *http.Client {
	t.Helper()
	proxyURL, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: tlsConfig}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

func backendPort(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestForwardProxyPlainHTTP(t *testing.T) {
	var sawHopByHop atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" || r.Header.Get("X-Hop") != "" {
			sawHopByHop.Store(true)
		}
		_, _ = io.WriteString(w, "hello "+r.Host+r.URL.Path)
	}))
	defer srv.Close()
	proxy := StartForwardProxy(t, map[string]string{"backend.manila.test": "127.0.0.1"})
	// User info in the proxy URL makes the client send Proxy-Authorization, which is for the
	// proxy only; X-Hop is declared hop-by-hop through Connection.
	proxyURL, err := url.Parse(strings.Replace(proxy.URL, "://", "://user:secret@", 1))
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL)}
	defer tr.CloseIdleConnections()

	host := "backend.manila.test:" + backendPort(t, srv)
	req, err := http.NewRequest(http.MethodGet, "http://"+host+"/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Connection", "X-Hop")
	req.Header.Set("X-Hop", "1")
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(body) != "hello "+host+"/x" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	if sawHopByHop.Load() {
		t.Error("hop-by-hop headers reached the backend")
	}
	if n := proxy.Requests("backend.manila.test"); n != 1 {
		t.Errorf("Requests(backend.manila.test) = %d, want 1", n)
	}
	if n := proxy.Total(); n != 1 {
		t.Errorf("Total() = %d, want 1", n)
	}
}

func TestForwardProxyConnectTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "secure "+r.URL.Path)
	}))
	defer srv.Close()
	proxy := StartForwardProxy(t, map[string]string{"backend.manila.test": "127.0.0.1"})
	// httptest's certificate is for example.com (and 127.0.0.1); trust it by its own roots.
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	c := proxiedClient(t, proxy, &tls.Config{RootCAs: roots, ServerName: "example.com", MinVersion: tls.VersionTLS12})

	for i := 0; i < 2; i++ { // the second request reuses the tunnel
		code, body := get(t, c, "https://backend.manila.test:"+backendPort(t, srv)+"/y")
		if code != http.StatusOK || body != "secure /y" {
			t.Fatalf("got %d %q", code, body)
		}
	}
	if n := proxy.Requests("backend.manila.test"); n != 1 {
		t.Errorf("Requests(backend.manila.test) = %d CONNECTs, want 1", n)
	}
}

func TestForwardProxyRefusesNonLoopback(t *testing.T) {
	proxy := StartForwardProxy(t, map[string]string{"bad.manila.test": "192.0.2.1", "good.manila.test": "127.0.0.1"})
	c := proxiedClient(t, proxy, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // never reaches a server

	for _, u := range []string{
		"http://bad.manila.test:8080/x", // mapped to a non-loopback IP
		"http://192.0.2.1:8080/x",       // unmapped non-loopback IP
		"http://unmapped.manila.test/x", // unmapped name: never resolved by DNS
	} {
		code, body := get(t, c, u)
		if code != http.StatusBadGateway {
			t.Errorf("GET %s: got %d %q, want 502", u, code, body)
		}
	}
	// CONNECT to a refused target fails with the proxy's 502.
	if _, err := c.Get("https://bad.manila.test:8443/x"); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("CONNECT bad.manila.test: err = %v, want Bad Gateway", err)
	}
	if n := proxy.dials.Load(); n != 0 {
		t.Errorf("the proxy dialled %d times, want 0", n)
	}
	if n := proxy.Requests("bad.manila.test"); n != 2 {
		t.Errorf("Requests(bad.manila.test) = %d, want 2 (refused requests count too)", n)
	}

	// A tunnel that is refused must not have been hijacked: a direct CONNECT sees a plain 502.
	conn, err := net.Dial("tcp", strings.TrimPrefix(proxy.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "CONNECT 192.0.2.1:443 HTTP/1.1\r\nHost: 192.0.2.1:443\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len("HTTP/1.1 502"))
	if _, err := io.ReadFull(conn, buf); err != nil || string(buf) != "HTTP/1.1 502" {
		t.Errorf("raw CONNECT: got %q, %v", buf, err)
	}
}
