package integration

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/manila-csi/manila-csi-driver-operator/manifests"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/classplan"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/controllers/manila"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/metrics"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/test/framework"
)

// The operator's metrics Service from manifests/: its DNS name is what the serving certificate names
// and what the ServiceMonitor's serverName says.
const metricsService = "manila-csi-driver-operator-metrics"

// The operator binary as deployed serves its metrics over TLS with the certificate service-ca issued
// for its Service, to clients that Kubernetes authenticates (TokenReview) and authorizes
// (SubjectAccessReview) for GET /metrics; the figures follow the world: share types created in
// Manila, requests with their status codes, successful and failed polls (Manila down and back), a
// foreign class, the config's validity.
func TestMetricsFollowTheWorld(t *testing.T) {
	ctx := context.Background()
	world.ResetOperand(t)
	world.ResetStorageClasses(t)
	foreignType := "metrics-foreign"
	createShareType(t, framework.ShareTypeSpec{Name: "metrics-gold"})
	createShareType(t, framework.ShareTypeSpec{Name: foreignType})
	foreignClass := classplan.PlainName(foreignType)
	createForeignClass(t, foreignClass)
	world.CreateClusterCSIDriver(t, operatorv1.Managed)
	run := startBinary(t, []string{"--manila-poll-interval=" + framework.PollInterval.String()})

	prometheus := newScraper(t, run.port, bearerToken(t, "openshift-monitoring", "prometheus-k8s", true))
	reader := newScraper(t, run.port, bearerToken(t, "manila-metrics-test", "metrics-reader", true))
	stranger := newScraper(t, run.port, bearerToken(t, "manila-metrics-test", "stranger", false))
	anonymous := newScraper(t, run.port, "")

	// Prometheus (library-go always lets prometheus-k8s read /metrics) and a reader bound to GET
	// /metrics (a SubjectAccessReview under the operator's RBAC) get the figures; the others do not.
	// A scrape reads each gauge at its own moment: a poll's time may show before its count.
	first := prometheus.waitFor(t, "a successful poll and its count", func(m scrape) error {
		if m.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil) <= 0 {
			return fmt.Errorf("no successful poll yet")
		}
		if got := m.value(metrics.Namespace+"_share_types", nil); got < 2 {
			return fmt.Errorf("share types %v, want the test's two at least", got)
		}
		return nil
	})
	reader.waitFor(t, "the figures for a reader bound to GET /metrics", func(scrape) error { return nil })
	// client-go's work-queue metrics, registered by component-base, for each controller's queue.
	prometheus.waitFor(t, "the Manila controller's work queue", func(m scrape) error {
		if len(m.series("workqueue_depth")) == 0 {
			return fmt.Errorf("no workqueue_depth series")
		}
		if got := m.value("workqueue_adds_total", map[string]string{"name": manila.ControllerName}); got < 1 {
			return fmt.Errorf("workqueue_adds_total{name=%q} = %v", manila.ControllerName, got)
		}
		return nil
	})
	for name, s := range map[string]*scraper{"a ServiceAccount without RBAC": stranger, "no token": anonymous} {
		code, err := s.status()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if code != http.StatusUnauthorized && code != http.StatusForbidden {
			t.Errorf("%s: GET /metrics answered %d, want 401 or 403", name, code)
		}
	}

	// The foreign class blocks its share type; once it is gone the operator makes its own.
	prometheus.waitFor(t, "the foreign class counted", func(m scrape) error {
		if got := m.value(metrics.Namespace+"_storage_classes", map[string]string{"state": metrics.StateForeign}); got != 1 {
			return fmt.Errorf("foreign classes: %v", got)
		}
		return nil
	})
	owned := prometheus.waitFor(t, "owned classes", func(m scrape) error {
		if got := m.value(metrics.Namespace+"_storage_classes", map[string]string{"state": metrics.StateOwned}); got < 1 {
			return fmt.Errorf("owned classes: %v", got)
		}
		return nil
	}).value(metrics.Namespace+"_storage_classes", map[string]string{"state": metrics.StateOwned})
	if err := world.Kube.StorageV1().StorageClasses().Delete(ctx, foreignClass, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	prometheus.waitFor(t, "the foreign class replaced by the operator's", func(m scrape) error {
		foreign := m.value(metrics.Namespace+"_storage_classes", map[string]string{"state": metrics.StateForeign})
		got := m.value(metrics.Namespace+"_storage_classes", map[string]string{"state": metrics.StateOwned})
		if foreign != 0 || got != owned+1 {
			return fmt.Errorf("foreign %v, owned %v (want 0 and %v)", foreign, got, owned+1)
		}
		return nil
	})

	// A share type created in Manila is seen by the next poll, which is counted with its request.
	seen := first.value(metrics.Namespace+"_share_types", nil)
	// Manila's endpoint may have the project in its path (GET /v2/{id}/types) or not (GET /v2/types).
	listOp := map[string]string{"service": metrics.ServiceManila, "code": "200"}
	for _, labels := range first.series(metrics.Namespace + "_openstack_requests_total") {
		if labels["service"] == metrics.ServiceManila && shareTypeListing.MatchString(labels["operation"]) {
			listOp["operation"] = labels["operation"]
		}
	}
	listed := first.value(metrics.Namespace+"_openstack_requests_total", listOp)
	if listOp["operation"] == "" || listed < 1 {
		t.Fatalf("no successful share-type listing counted: %v", first.series(metrics.Namespace+"_openstack_requests_total"))
	}
	if got := first.value(metrics.Namespace+"_openstack_requests_total", map[string]string{
		"service": metrics.ServiceIdentity, "operation": "POST /v3/auth/tokens", "code": "201"}); got < 1 {
		t.Errorf("no Keystone login counted: %v", first.series(metrics.Namespace+"_openstack_requests_total"))
	}
	createShareType(t, framework.ShareTypeSpec{Name: "metrics-silver"})
	later := prometheus.waitFor(t, "the new share type seen", func(m scrape) error {
		if got := m.value(metrics.Namespace+"_share_types", nil); got != seen+1 {
			return fmt.Errorf("share types %v, want %v", got, seen+1)
		}
		return nil
	})
	if got := later.value(metrics.Namespace+"_openstack_requests_total", listOp); got <= listed {
		t.Errorf("share-type listings counted %v, then %v", listed, got)
	}
	if got := later.value(metrics.Namespace+"_openstack_request_duration_seconds", map[string]string{
		"service": metrics.ServiceManila, "operation": listOp["operation"]}); got < 2 {
		t.Errorf("%v timed share-type listings, want at least 2", got)
	}
	if a, b := first.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil),
		later.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil); b <= a {
		t.Errorf("the last successful poll did not advance: %v, then %v", a, b)
	}
	if got := later.value(metrics.Namespace+"_poll_duration_seconds", map[string]string{"result": metrics.PollSuccess}); got < 2 {
		t.Errorf("%v successful polls timed, want at least 2", got)
	}
	checkBoundedLabels(t, later)

	// Manila down: polls fail, its requests are counted without a status code, and the last
	// successful poll stands still; back up, it advances again.
	failures := later.value(metrics.Namespace+"_poll_duration_seconds", map[string]string{"result": metrics.PollFailure})
	manilaUp := false
	if err := world.OpenStack.StopManila(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !manilaUp {
			if err := world.OpenStack.StartManila(); err != nil {
				t.Errorf("restarting Manila: %v", err)
			}
		}
	})
	down := prometheus.waitFor(t, "failed polls and unanswered Manila requests counted", func(m scrape) error {
		failed := m.value(metrics.Namespace+"_poll_duration_seconds", map[string]string{"result": metrics.PollFailure})
		unanswered := m.value(metrics.Namespace+"_openstack_requests_total", map[string]string{"service": metrics.ServiceManila, "code": "error"})
		if failed < failures+2 || unanswered < 1 {
			return fmt.Errorf("%v failed polls (want at least %v), %v unanswered Manila requests", failed, failures+2, unanswered)
		}
		return nil
	})
	stalled := down.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil)
	downFailures := down.value(metrics.Namespace+"_poll_duration_seconds", map[string]string{"result": metrics.PollFailure})
	prometheus.waitFor(t, "another failed poll, the last successful one unchanged", func(m scrape) error {
		if got := m.value(metrics.Namespace+"_poll_duration_seconds", map[string]string{"result": metrics.PollFailure}); got <= downFailures {
			return fmt.Errorf("%v failed polls", got)
		}
		if got := m.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil); got != stalled {
			t.Errorf("the last successful poll moved from %v to %v while Manila was down", stalled, got)
		}
		return nil
	})
	if err := world.OpenStack.StartManila(); err != nil {
		t.Fatal(err)
	}
	manilaUp = true
	prometheus.waitFor(t, "a successful poll after Manila is back", func(m scrape) error {
		if got := m.value(metrics.Namespace+"_last_successful_poll_timestamp_seconds", nil); got <= stalled {
			return fmt.Errorf("last successful poll still %v", got)
		}
		return nil
	})

	// An invalid operator config reads 0 until it is fixed.
	if got := later.value(metrics.Namespace+"_config_valid", nil); got != 1 {
		t.Errorf("config_valid %v without a ConfigMap, want 1", got)
	}
	world.WriteOperatorConfig(t, "pollInterval: abc\n")
	prometheus.waitFor(t, "config_valid 0 with an invalid config", configValid(0))
	world.WriteOperatorConfig(t, "pollInterval: 5s\n")
	prometheus.waitFor(t, "config_valid 1 once it is fixed", configValid(1))
}

func configValid(want float64) func(scrape) error {
	return func(m scrape) error {
		if got := m.value(metrics.Namespace+"_config_valid", nil); got != want {
			return fmt.Errorf("config_valid %v", got)
		}
		return nil
	}
}

var shareTypeListing = regexp.MustCompile(`^GET /v2(/\{id\})?/types$`)

var boundedOperation = regexp.MustCompile(`^(GET|HEAD|POST|PUT|PATCH|DELETE|OTHER) /[A-Za-z0-9_.{}/-]*$`)

// checkBoundedLabels: no operation holds an address, a query or an ID of the world.
func checkBoundedLabels(t *testing.T, m scrape) {
	t.Helper()
	for _, labels := range m.series(metrics.Namespace + "_openstack_requests_total") {
		op := labels["operation"]
		if !boundedOperation.MatchString(op) || strings.Contains(op, "127.0.0.1") || strings.Contains(op, "?") {
			t.Errorf("operation label %q is not a templated path", op)
		}
		for _, sentinel := range world.OpenStack.Sentinels() {
			if strings.Contains(fmt.Sprint(labels), sentinel) {
				t.Errorf("a metric label shows one of the world's secrets")
			}
		}
	}
	if ops := len(m.series(metrics.Namespace + "_openstack_requests_total")); ops > 20 {
		t.Errorf("%d request series after a few polls: %v", ops, m.series(metrics.Namespace+"_openstack_requests_total"))
	}
}

// createForeignClass creates a class with the operator's name for a share type but not its label, as
// an admin might have; it is deleted when the test ends.
func createForeignClass(t *testing.T, name string) {
	t.Helper()
	api := world.Kube.StorageV1().StorageClasses()
	if _, err := api.Create(context.Background(), &storagev1.StorageClass{
		ObjectMeta:  metav1.ObjectMeta{Name: name},
		Provisioner: names.CSIDriverName,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := api.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting StorageClass %s: %v", name, err)
		}
	})
}

// bearerToken returns a token of the ServiceAccount, created with its namespace if missing. bound
// grants it GET /metrics as OpenShift's monitoring stack grants prometheus-k8s (a ClusterRole on the
// non-resource URL); everything is deleted when the test ends, namespaces apart.
func bearerToken(t *testing.T, namespace, name string, bound bool) string {
	t.Helper()
	ctx := context.Background()
	kube := world.Kube
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().ServiceAccounts(namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kube.CoreV1().ServiceAccounts(namespace).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	if bound {
		role := "manila-metrics-test-" + name
		if _, err := kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: role},
			Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = kube.RbacV1().ClusterRoleBindings().Delete(context.Background(), role, metav1.DeleteOptions{})
			_ = kube.RbacV1().ClusterRoles().Delete(context.Background(), role, metav1.DeleteOptions{})
		})
	}
	cfg, err := world.ServiceAccountConfig(ctx, namespace, name)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.BearerToken
}

// scraper reads /metrics as Prometheus does with the ServiceMonitor of manifests/: over TLS verified
// against the service CA for the Service's DNS name, with a bearer token.
type scraper struct {
	url, token string
	client     *http.Client
}

func newScraper(t *testing.T, port int, token string) *scraper {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(world.ServiceCA.CAPEM) {
		t.Fatal("the service CA is not PEM")
	}
	return &scraper{
		url:   fmt.Sprintf("https://127.0.0.1:%d/metrics", port),
		token: token,
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: roots, ServerName: serviceMonitorServerName(t), MinVersion: tls.VersionTLS12}}},
	}
}

// serviceMonitorServerName is the serverName of the operator's ServiceMonitor in manifests/.
func serviceMonitorServerName(t *testing.T) string {
	t.Helper()
	objs, err := manifests.Objects()
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if o.GetKind() != "ServiceMonitor" {
			continue
		}
		endpoints, _, _ := unstructured.NestedSlice(o.Object, "spec", "endpoints")
		for _, e := range endpoints {
			if tlsConfig, ok := e.(map[string]interface{})["tlsConfig"].(map[string]interface{}); ok {
				if name, _ := tlsConfig["serverName"].(string); name != "" {
					if want := metricsService + "." + names.OperatorNamespace + ".svc"; name != want {
						t.Fatalf("the ServiceMonitor's serverName is %q, want %q", name, want)
					}
					return name
				}
			}
		}
	}
	t.Fatal("no ServiceMonitor with a serverName in manifests/")
	return ""
}

func (s *scraper) get() (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	return s.client.Do(req)
}

// status returns the status code of a scrape, waiting for the endpoint to listen.
func (s *scraper) status() (int, error) {
	resp, err := s.get()
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// waitFor scrapes until check passes and returns that scrape.
func (s *scraper) waitFor(t *testing.T, what string, check func(scrape) error) scrape {
	t.Helper()
	var last scrape
	framework.Eventually(t, framework.DefaultTimeout, what, func(ctx context.Context) error {
		resp, err := s.get()
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			return fmt.Errorf("GET /metrics: %d %s", resp.StatusCode, body)
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		if err != nil {
			return err
		}
		last = scrape(families)
		return check(last)
	})
	return last
}

// scrape is one parsed /metrics answer.
type scrape map[string]*dto.MetricFamily

// value sums the series of the family whose labels include want: a gauge's or counter's value, a
// histogram's count.
func (m scrape) value(name string, want map[string]string) float64 {
	var sum float64
	f, ok := m[name]
	if !ok {
		return 0
	}
	for _, metric := range f.GetMetric() {
		if !hasLabels(metric, want) {
			continue
		}
		switch {
		case metric.Gauge != nil:
			sum += metric.Gauge.GetValue()
		case metric.Counter != nil:
			sum += metric.Counter.GetValue()
		case metric.Histogram != nil:
			sum += float64(metric.Histogram.GetSampleCount())
		}
	}
	return sum
}

// series lists the label sets of a family.
func (m scrape) series(name string) []map[string]string {
	var out []map[string]string
	if f, ok := m[name]; ok {
		for _, metric := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range metric.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, labels)
		}
	}
	return out
}

func hasLabels(metric *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		found := false
		for _, l := range metric.GetLabel() {
			if l.GetName() == k && l.GetValue() == v {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}
