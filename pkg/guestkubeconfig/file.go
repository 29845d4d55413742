// Package guestkubeconfig follows the kubeconfig file through which a hosted control plane's operator
// reaches its guest cluster. HyperShift keeps that kubeconfig in a Secret and rotates it in place; the
// kubelet rewrites the mounted file. Clients built once from Config keep working across a rotation:
// every request goes through the credentials and server the file held at its last good reading.
package guestkubeconfig

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ErrMissing is the error of a file that does not exist (wrapped).
var ErrMissing = errors.New("does not exist")

// File is the guest kubeconfig file at its last good reading.
type File struct {
	path string

	mu        sync.RWMutex
	content   []byte
	server    *url.URL
	transport http.RoundTripper
}

// Load reads the file; it fails when the file is missing or holds no usable kubeconfig. Errors name
// the file and the problem, never a credential.
func Load(path string) (*File, error) {
	f := &File{path: path}
	if _, err := f.Reload(); err != nil {
		return nil, err
	}
	return f, nil
}

// Path is the file's path.
func (f *File) Path() string { return f.path }

// Server is the guest kube-apiserver's URL at the last good reading, without userinfo.
func (f *File) Server() string {
	f.mu.RLock()
	defer f.mu.RUnlock()
	u := *f.server
	u.User = nil
	return u.String()
}

// Reload reads the file again. On a new, usable content the requests of every client built from
// Config use it from then on (a watch open already keeps its connection); on a problem the last good
// content stays in use and the problem is returned. changed says whether the content in use changed.
func (f *File) Reload() (changed bool, err error) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("guest kubeconfig %s %w", f.path, ErrMissing)
		}
		return false, fmt.Errorf("guest kubeconfig %s cannot be read: %w", f.path, errors.Unwrap(err))
	}
	f.mu.RLock()
	same := bytes.Equal(data, f.content)
	f.mu.RUnlock()
	if same {
		return false, nil
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		// clientcmd's errors name fields and files, not their values.
		return false, fmt.Errorf("guest kubeconfig %s is not a usable kubeconfig: %w", f.path, err)
	}
	server, err := url.Parse(cfg.Host)
	if err != nil || server.Host == "" {
		return false, fmt.Errorf("guest kubeconfig %s: the current context's cluster has no valid server URL", f.path)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return false, fmt.Errorf("guest kubeconfig %s: %w", f.path, err)
	}
	f.mu.Lock()
	f.content, f.server, f.transport = data, server, transport
	f.mu.Unlock()
	return true, nil
}

// Config returns a rest.Config for the guest whose every request uses the file's credentials and
// server at the time it is sent. QPS, Burst, content types and WrapTransport may be set on it; TLS
// and credential fields must stay empty (the file's apply).
func (f *File) Config() *rest.Config {
	return &rest.Config{Host: f.Server(), Transport: roundTripper{f}}
}

type roundTripper struct{ f *File }

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.f.mu.RLock()
	transport, server := rt.f.transport, rt.f.server
	rt.f.mu.RUnlock()
	if req.URL.Host != server.Host || req.URL.Scheme != server.Scheme {
		// The server moved in a rotation: clients built before still address the old one.
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host, req.Host = server.Scheme, server.Host, ""
	}
	return transport.RoundTrip(req)
}
