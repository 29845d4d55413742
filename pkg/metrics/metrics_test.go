package metrics

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/component-base/metrics/legacyregistry"
)

func TestOperation(t *testing.T) {
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "", "GET /"},
		{"GET", "/", "GET /"},
		{"POST", "/v3/auth/tokens", "POST /v3/auth/tokens"},
		{"GET", "/v3/auth/tokens/", "GET /v3/auth/tokens"},
		{"GET", "/v2/5f1c0a7e9b2d4e6f8a0b1c2d3e4f5a6b/types", "GET /v2/{id}/types"},
		{"GET", "/v2/proj/types/0b7e0c3a-1111-2222-3333-444455556666/extra_specs", "GET /v2/{id}/types/{id}/extra_specs"},
		{"GET", "/v2.1/proj/availability-zones", "GET /v2.1/{id}/availability-zones"},
		{"GET", "/v3/users/admin/password", "GET /v3/users/{id}/{id}"},
		// A name in a path never becomes a label value.
		{"GET", "/v2/proj/types/Gold_NFS", "GET /v2/{id}/types/{id}"},
		{"DELETE", "/a/b/c/d/e/f/g/h", "DELETE /{id}/{id}/{id}/{id}/{id}/{id}/..."},
	} {
		if got := Operation(tc.method, tc.path); got != tc.want {
			t.Errorf("Operation(%q, %q) = %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestBasePath(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "/": "", "/v3": "", "/v3/": "", "/v2/abc": "", "/identity/v3": "/identity",
		"/share/v2/abc": "/share", "/identity": "/identity", "/a/b/v2.1/x": "/a/b",
	} {
		if got := BasePath(in); got != want {
			t.Errorf("BasePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	shared := &Endpoints{}
	shared.Add(ServiceIdentity, "https://cloud.example.com/identity/v3")
	shared.Add(ServiceManila, "https://cloud.example.com/share/v2/abc")
	apart := &Endpoints{}
	apart.Add(ServiceIdentity, "http://127.0.0.1:5000/v3")
	apart.Add(ServiceManila, "http://127.0.0.1:8786/v2/abc")
	apart.Add(ServiceManila, "http://127.0.0.1:9786/v2/abc") // Manila moved: the newest endpoint counts
	for _, tc := range []struct {
		name              string
		e                 *Endpoints
		url               string
		service, wantPath string
	}{
		{"keystone on a shared host", shared, "https://cloud.example.com/identity/v3/auth/tokens", ServiceIdentity, "/v3/auth/tokens"},
		{"keystone discovery", shared, "https://cloud.example.com/identity", ServiceIdentity, ""},
		{"manila on a shared host", shared, "https://cloud.example.com/share/v2/abc/types", ServiceManila, "/v2/abc/types"},
		{"a path of neither", shared, "https://cloud.example.com/compute/v2.1/servers", ServiceOther, "/compute/v2.1/servers"},
		{"no prefix match by string only", shared, "https://cloud.example.com/identityx/v3", ServiceOther, "/identityx/v3"},
		{"keystone on its port", apart, "http://127.0.0.1:5000/", ServiceIdentity, "/"},
		{"manila on its new port", apart, "http://127.0.0.1:9786/v2/abc/types", ServiceManila, "/v2/abc/types"},
		{"manila's old port", apart, "http://127.0.0.1:8786/v2/abc/types", ServiceOther, "/v2/abc/types"},
		{"another scheme", apart, "https://127.0.0.1:5000/v3", ServiceOther, "/v3"},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		service, path := tc.e.Classify(u)
		if service != tc.service || path != tc.wantPath {
			t.Errorf("%s: Classify(%s) = %q, %q; want %q, %q", tc.name, tc.url, service, path, tc.service, tc.wantPath)
		}
	}
}

func TestClassSeries(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   ClassCensus
		want map[[2]string]float64
	}{
		{"nothing", ClassCensus{}, map[[2]string]float64{}},
		{"every state", ClassCensus{Owned: 3, Stale: 1, Foreign: 2, Skipped: map[string]int{SkipNoNFS: 2, SkipShareNetwork: 1}},
			map[[2]string]float64{{StateOwned, ""}: 3, {StateStale, ""}: 1, {StateForeign, ""}: 2,
				{StateSkipped, SkipNoNFS}: 2, {StateSkipped, SkipShareNetwork}: 1}},
		{"an unknown reason counts as other", ClassCensus{Skipped: map[string]int{"zone gone": 2, SkipOther: 1}},
			map[[2]string]float64{{StateSkipped, SkipOther}: 3}},
	} {
		got := ClassSeries(tc.in)
		// Every state and reason has a series, zero unless the census says otherwise.
		if len(got) != 3+len(skipReasons) {
			t.Errorf("%s: %d series, want %d: %v", tc.name, len(got), 3+len(skipReasons), got)
		}
		for key, v := range got {
			if v != tc.want[key] {
				t.Errorf("%s: %v = %v, want %v", tc.name, key, v, tc.want[key])
			}
		}
	}
}

func TestCode(t *testing.T) {
	if got := Code(&http.Response{StatusCode: 404}, nil); got != "404" {
		t.Errorf("Code(404) = %q", got)
	}
	if got := Code(nil, errors.New("connection refused")); got != "error" {
		t.Errorf("Code(error) = %q", got)
	}
}

// value reads a metric of the legacy registry: a gauge's or counter's value, a histogram's count.
func value(t *testing.T, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			for k, v := range labels {
				if !hasLabel(m, k, v) {
					continue metrics
				}
			}
			switch {
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Counter != nil:
				return m.Counter.GetValue()
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return 0
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue() == value
		}
	}
	return false
}

func TestRecordersMoveTheRegistry(t *testing.T) {
	failures := value(t, Namespace+"_poll_duration_seconds", map[string]string{"result": PollFailure})
	ObservePoll(time.Second, false, time.Unix(100, 0), 7)
	if got := value(t, Namespace+"_poll_duration_seconds", map[string]string{"result": PollFailure}); got != failures+1 {
		t.Errorf("failed polls %v, want %v", got, failures+1)
	}
	if got := value(t, Namespace+"_share_types", nil); got == 7 {
		t.Errorf("a failed poll set share_types")
	}
	ObservePoll(time.Second, true, time.Unix(1700000000, 500000000), 4)
	if got := value(t, Namespace+"_last_successful_poll_timestamp_seconds", nil); got != 1700000000.5 {
		t.Errorf("last successful poll %v", got)
	}
	if got := value(t, Namespace+"_share_types", nil); got != 4 {
		t.Errorf("share_types %v, want 4", got)
	}

	if got := value(t, Namespace+"_config_valid", nil); got != 1 {
		t.Errorf("config_valid starts at %v, want 1", got)
	}
	SetConfigValid(false)
	if got := value(t, Namespace+"_config_valid", nil); got != 0 {
		t.Errorf("config_valid %v after an invalid config", got)
	}
	SetConfigValid(true)

	SetClasses(ClassCensus{Owned: 2, Foreign: 1, Skipped: map[string]int{SkipNoNFS: 1}})
	SetClasses(ClassCensus{Owned: 3})
	for _, tc := range []struct {
		state, reason string
		want          float64
	}{{StateOwned, "", 3}, {StateForeign, "", 0}, {StateSkipped, SkipNoNFS, 0}} {
		if got := value(t, Namespace+"_storage_classes", map[string]string{"state": tc.state, "reason": tc.reason}); got != tc.want {
			t.Errorf("storage_classes{state=%s,reason=%s} = %v, want %v", tc.state, tc.reason, got, tc.want)
		}
	}
}

func TestInstrumentTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/p/types" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	e := &Endpoints{}
	e.Add(ServiceManila, srv.URL+"/v2/p")
	client := &http.Client{Transport: InstrumentTransport(http.DefaultTransport, e)}
	labels := func(op, code string) map[string]string {
		return map[string]string{"service": ServiceManila, "operation": op, "code": code}
	}
	ok := value(t, Namespace+"_openstack_requests_total", labels("GET /v2/{id}/types", "200"))
	missing := value(t, Namespace+"_openstack_requests_total", labels("GET /v2/{id}/shares", "404"))
	for _, p := range []string{"/v2/p/types?is_public=all", "/v2/p/types", "/v2/p/shares"} {
		resp, err := client.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got := value(t, Namespace+"_openstack_requests_total", labels("GET /v2/{id}/types", "200")); got != ok+2 {
		t.Errorf("200s %v, want %v", got, ok+2)
	}
	if got := value(t, Namespace+"_openstack_requests_total", labels("GET /v2/{id}/shares", "404")); got != missing+1 {
		t.Errorf("404s %v, want %v", got, missing+1)
	}
	if got := value(t, Namespace+"_openstack_request_duration_seconds", map[string]string{"service": ServiceManila, "operation": "GET /v2/{id}/types"}); got < 2 {
		t.Errorf("latency observations %v, want at least 2", got)
	}
	srv.Close()
	if _, err := client.Get(srv.URL + "/v2/p/types"); err == nil {
		t.Fatal("a closed server answered")
	}
	if got := value(t, Namespace+"_openstack_requests_total", labels("GET /v2/{id}/types", "error")); got < 1 {
		t.Errorf("no error counted for a refused connection")
	}
}
