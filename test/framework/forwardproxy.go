package framework

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ForwardProxy stands in for a cluster-wide egress HTTP proxy (what proxy.config.openshift.io's
// httpProxy / httpsProxy point at), on 127.0.0.1.
//
// Serves: plain proxied HTTP requests (absolute-URI "GET http://host:port/path") and CONNECT
// tunnels. Target host names are resolved through the hosts map given to StartForwardProxy
// (e.g. "openstack.manila.test" -> "127.0.0.1"); names that are not in it must be IP literals.
// Whatever the mapping, only loopback addresses are ever dialled: any other target gets
// 502 Bad Gateway without a dial.
//
// Records: how many requests arrived for each target host, answered or refused.
type ForwardProxy struct {
	// URL is the proxy's address, "http://127.0.0.1:port".
	URL string

	hosts     map[string]string // lower-case name -> IP or IP:port
	transport *http.Transport
	dials     atomic.Int64 // connections actually dialled, for the unit test

	mu      sync.Mutex
	counts  map[string]int
	total   int
	tunnels map[net.Conn]struct{} // hijacked connections, closed at cleanup
	wg      sync.WaitGroup        // tunnel copy goroutines
}

// hopByHopHeaders are meaningful for one connection only and are not forwarded (RFC 9110 7.6.1).
var hopByHopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// StartForwardProxy starts the proxy on a free 127.0.0.1 port; it is closed when the test ends.
// hosts maps target host names to loopback IPs; a value may also carry a port ("127.0.0.1:8443")
// to redirect the port as well.
func StartForwardProxy(t testing.TB, hosts map[string]string) *ForwardProxy {
	t.Helper()
	p := &ForwardProxy{hosts: map[string]string{}, counts: map[string]int{}, tunnels: map[net.Conn]struct{}{}}
	for name, addr := range hosts {
		p.hosts[strings.ToLower(name)] = addr
	}
	p.transport = &http.Transport{
		Proxy:                 nil, // never chain to $HTTP_PROXY: this is the proxy
		DialContext:           p.dialContext,
		DisableCompression:    true, // pass Accept-Encoding and bodies through untouched
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: time.Minute,
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = server.Serve(listener) }()
	t.Cleanup(func() {
		_ = server.Close() // listener and non-hijacked connections
		p.mu.Lock()
		for c := range p.tunnels {
			_ = c.Close()
		}
		p.tunnels = nil // refuse new tunnels from here on
		p.mu.Unlock()
		p.wg.Wait()
		p.transport.CloseIdleConnections()
	})
	p.URL = "http://" + listener.Addr().String()
	return p
}

// Requests returns how many requests (plain and CONNECT) targeted host (a name or IP, no port).
func (p *ForwardProxy) Requests(host string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[strings.ToLower(host)]
}

// Total returns how many proxy requests arrived, whatever their target.
func (p *ForwardProxy) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

func (p *ForwardProxy) count(host string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[strings.ToLower(host)]++
	p.total++
}

// resolve maps "host:port" to the loopback "ip:port" to dial, or fails for non-loopback targets.
func (p *ForwardProxy) resolve(hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort(host, port)
	if mapped, ok := p.hosts[strings.ToLower(host)]; ok {
		if h, _, err := net.SplitHostPort(mapped); err == nil {
			host, addr = h, mapped
		} else {
			host, addr = mapped, net.JoinHostPort(mapped, port)
		}
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("forward proxy: refusing to dial %s (%s is not a loopback IP)", hostport, host)
	}
	return addr, nil
}

func (p *ForwardProxy) dialContext(ctx context.Context, network, hostport string) (net.Conn, error) {
	addr, err := p.resolve(hostport)
	if err != nil {
		return nil, err
	}
	p.dials.Add(1)
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// ServeHTTP implements http.Handler.
func (p *ForwardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.serveConnect(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "forward proxy: only absolute http:// request URIs and CONNECT are served", http.StatusBadRequest)
		return
	}
	p.count(r.URL.Hostname())

	out := r.Clone(r.Context())
	out.RequestURI = "" // client requests must not carry it
	out.Close = false
	if r.ContentLength == 0 {
		out.Body = nil
	}
	removeHopByHop(out.Header)
	resp, err := p.transport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	removeHopByHop(resp.Header)
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// serveConnect opens a tunnel: dial the target, answer 200, then copy bytes both ways until
// either side ends, and close both.
func (p *ForwardProxy) serveConnect(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "forward proxy: CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	p.count(host)
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	backend, err := p.dialContext(ctx, "tcp", r.Host)
	cancel()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	client, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		_ = backend.Close()
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !p.track(client, backend) {
		return // the proxy is closing
	}
	var once sync.Once
	closeBoth := func() { once.Do(func() { p.untrack(client, backend) }) }
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		closeBoth() // the copies below then end at once
	}
	go func() {
		defer p.wg.Done()
		defer closeBoth()
		// Bytes the client sent after its CONNECT request may already sit in the reader.
		_, _ = io.Copy(backend, buffered.Reader)
	}()
	go func() {
		defer p.wg.Done()
		defer closeBoth()
		_, _ = io.Copy(client, backend)
	}()
}

// track registers a tunnel's connections for cleanup and its two copy goroutines with wg; it
// closes the connections and returns false when the proxy is already shutting down.
func (p *ForwardProxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tunnels == nil {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	p.wg.Add(2) // under mu, so never concurrent with the cleanup's wg.Wait at zero
	return true
}

func (p *ForwardProxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.tunnels, c) // no-op once cleanup set the map to nil
	}
}

func removeHopByHop(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			if name = strings.TrimSpace(name); name != "" {
				h.Del(name)
			}
		}
	}
	for _, name := range hopByHopHeaders {
		h.Del(name)
	}
}
