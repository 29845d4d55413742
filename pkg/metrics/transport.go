package metrics

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Services, the values of the service label.
const (
	ServiceIdentity = "identity"
	ServiceManila   = "sharev2"
	ServiceOther    = "other"
)

// Endpoints maps request URLs to the OpenStack service they address: Keystone's is known when the
// client is made, Manila's once it has been read from the catalog. Safe for concurrent use.
type Endpoints struct {
	mu    sync.RWMutex
	bases []base
}

type base struct {
	service, scheme, host, path string
}

// Add records that URLs under endpoint belong to service. Only what precedes the endpoint's API
// version in its path counts (Keystone's version discovery is at its root, Manila's project is after
// /v2), so two services on one host are told apart by their path prefixes.
func (e *Endpoints) Add(service, endpoint string) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return
	}
	b := base{service: service, scheme: u.Scheme, host: u.Host, path: BasePath(u.Path)}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, old := range e.bases {
		if old.service == service {
			e.bases[i] = b
			return
		}
	}
	e.bases = append(e.bases, b)
}

// Classify returns the service a URL addresses and its path below that service's base.
func (e *Endpoints) Classify(u *url.URL) (service, path string) {
	service, path = ServiceOther, u.Path
	best := -1
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, b := range e.bases {
		if b.scheme != u.Scheme || b.host != u.Host || len(b.path) <= best {
			continue
		}
		if u.Path == b.path || strings.HasPrefix(u.Path, b.path+"/") {
			service, path, best = b.service, strings.TrimPrefix(u.Path, b.path), len(b.path)
		}
	}
	return service, path
}

var versionSegment = regexp.MustCompile(`^v[0-9]+(\.[0-9]+)?$`)

// BasePath is the part of an endpoint's path before its first API version segment, without a
// trailing slash: "/identity/v3" -> "/identity", "/v2/abc" -> "", "/" -> "".
func BasePath(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range segs {
		if versionSegment.MatchString(s) {
			segs = segs[:i]
			break
		}
	}
	joined := strings.Join(segs, "/")
	if joined == "" {
		return ""
	}
	return "/" + joined
}

// vocabulary are the path segments of Keystone's and Manila's APIs kept as they are; any other
// segment (an ID, a name, a project) becomes {id}.
var vocabulary = map[string]bool{
	"auth": true, "tokens": true, "catalog": true, "projects": true, "domains": true, "users": true,
	"roles": true, "role_assignments": true, "services": true, "endpoints": true, "regions": true,
	"application_credentials": true, "OS-TRUST": true, "trusts": true, "credentials": true, "system": true,
	"types": true, "share_types": true, "extra_specs": true, "share_type_access": true,
	"os-share-type-access": true, "shares": true, "detail": true, "action": true, "metadata": true,
	"export_locations": true, "snapshots": true, "share-networks": true, "share_networks": true,
	"share-servers": true, "availability-zones": true, "os-availability-zone": true, "limits": true,
	"quota-sets": true, "extensions": true, "messages": true, "share-access-rules": true,
	"share-groups": true, "share-group-types": true, "scheduler-stats": true, "pools": true,
}

// maxSegments bounds how many path segments an operation shows.
const maxSegments = 6

// Operation names a request by method and templated path: API versions and the segments of
// Keystone's and Manila's vocabulary stay, every other segment becomes {id}, the query is dropped
// and at most maxSegments segments are shown. Its values are bounded whatever the URLs.
func Operation(method, path string) string {
	path = strings.Trim(path, "/")
	if path == "" {
		return method + " /"
	}
	segs := strings.Split(path, "/")
	more := len(segs) > maxSegments
	if more {
		segs = segs[:maxSegments]
	}
	for i, s := range segs {
		if !vocabulary[s] && !versionSegment.MatchString(s) {
			segs[i] = "{id}"
		}
	}
	op := method + " /" + strings.Join(segs, "/")
	if more {
		op += "/..."
	}
	return op
}

// knownMethods bounds the method part of an operation.
var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// Code is the code label of a response: its status code, or "error" when none came.
func Code(resp *http.Response, err error) string {
	if err != nil || resp == nil {
		return "error"
	}
	return strconv.Itoa(resp.StatusCode)
}

// InstrumentTransport counts and times every request through next by service, operation and code.
func InstrumentTransport(next http.RoundTripper, endpoints *Endpoints) http.RoundTripper {
	return &transport{next: next, endpoints: endpoints}
}

type transport struct {
	next      http.RoundTripper
	endpoints *Endpoints
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	service, path := t.endpoints.Classify(req.URL)
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if !knownMethods[method] {
		method = "OTHER"
	}
	op := Operation(method, path)
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	openStackLatency.WithLabelValues(service, op).Observe(time.Since(start).Seconds())
	openStackRequests.WithLabelValues(service, op, Code(resp, err)).Inc()
	return resp, err
}
