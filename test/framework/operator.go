package framework

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/controller/controllercmd"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/condition"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/names"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operator"
)

// LogBuffer collects the operator's klog output for assertions.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// String returns everything logged so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

var klogOnce sync.Once

// captureKlog sends klog's output to buf, at verbosity 4 so tests see what admins would see at Debug.
func captureKlog(buf *LogBuffer) {
	klogOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.PanicOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		_ = fs.Set("v", "4")
	})
	klog.SetOutput(buf)
}

// RunningOperator is the operator running in this test process.
type RunningOperator struct {
	Logs *LogBuffer
	// Requests counts the operator's HTTP requests to Keystone and Manila.
	Requests *RequestCounter
	// KubeRequests counts the operator's requests to kube-apiserver.
	KubeRequests *RequestCounter
	stop         func()
	skipRBAC     bool
}

// SkipRBACCheck turns off the end-of-test check for RBAC refusals in this operator's log, for a test
// that restarts kube-apiserver: a restarting kube-apiserver refuses requests until its authorizer has
// loaded the roles, whatever the rules.
func (r *RunningOperator) SkipRBACCheck() { r.skipRBAC = true }

// TestImages are the operand images the in-process operator is given.
var TestImages = map[string]string{
	"DRIVER_IMAGE":                "quay.io/test/manila-csi-plugin:1",
	"NFS_DRIVER_IMAGE":            "quay.io/test/csi-driver-nfs:1",
	"PROVISIONER_IMAGE":           "quay.io/test/csi-provisioner:1",
	"RESIZER_IMAGE":               "quay.io/test/csi-resizer:1",
	"SNAPSHOTTER_IMAGE":           "quay.io/test/csi-snapshotter:1",
	"NODE_DRIVER_REGISTRAR_IMAGE": "quay.io/test/csi-node-driver-registrar:1",
	"LIVENESS_PROBE_IMAGE":        "quay.io/test/livenessprobe:1",
	"KUBE_RBAC_PROXY_IMAGE":       "quay.io/test/kube-rbac-proxy:1",
}

// PollInterval is how often the operators of the tests poll Manila.
const PollInterval = 5 * time.Second

// OperatorOptions returns the options the in-process operator runs with unless a test changes them:
// the test images, a PollInterval poll and a request counter.
func OperatorOptions() (*operator.Options, *RequestCounter) {
	counter := &RequestCounter{}
	opts := operator.DefaultOptions()
	opts.PollInterval = PollInterval
	opts.SecretGrace = 3 * time.Second
	// Stopping an in-process operator returns at once; the hand-over is the binary's (TestRealCSOImageSwap*).
	opts.HandOverWait = 0
	opts.OpenStackTransport = counter.Wrap
	opts.Getenv = func(name string) string { return TestImages[name] }
	return opts, counter
}

// Stop cancels the operator and waits for Run to return.
func (r *RunningOperator) Stop() { r.stop() }

// RunOperator runs the operator in-process against the world until the test ends (or Stop).
// On failure the test log gets the operator's log.
func (w *World) RunOperator(t testing.TB) *RunningOperator {
	t.Helper()
	opts, counter := OperatorOptions()
	return w.RunOperatorWith(t, opts, counter)
}

// RunOperatorWith runs the operator with the given options; counter may be nil.
func (w *World) RunOperatorWith(t testing.TB, opts *operator.Options, counter *RequestCounter) *RunningOperator {
	t.Helper()
	// The operator's ServiceAccount from manifests/, with the QPS controllercmd hands over (none: the
	// operator's own limits apply).
	kubeConfig, err := w.OperatorConfig(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w.runOperatorAs(t, opts, counter, kubeConfig, names.OperatorNamespace)
}

// runOperatorAs runs the operator in-process as kubeConfig's identity, in namespace (controllercmd's
// --namespace), with controllercmd's event recorder there.
func (w *World) runOperatorAs(t testing.TB, opts *operator.Options, counter *RequestCounter, kubeConfig *rest.Config, namespace string) *RunningOperator {
	t.Helper()
	logs := &LogBuffer{}
	captureKlog(logs)
	clk := clock.RealClock{}
	kubeRequests := &RequestCounter{}
	kubeConfig.Wrap(kubeRequests.Wrap)
	operatorKube, err := kubernetes.NewForConfig(kubeConfig)
	if err != nil {
		t.Fatal(err)
	}
	cc := &controllercmd.ControllerContext{
		Clock:             clk,
		KubeConfig:        kubeConfig,
		ProtoKubeConfig:   protoConfig(kubeConfig),
		OperatorNamespace: namespace,
		EventRecorder: events.NewKubeRecorder(operatorKube.CoreV1().Events(namespace), names.OperatorName,
			&corev1.ObjectReference{Kind: "Deployment", Namespace: namespace, Name: names.OperatorName, APIVersion: "apps/v1"}, clk),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- opts.Run(ctx, cc) }()
	var once sync.Once
	running := &RunningOperator{Logs: logs, Requests: counter, KubeRequests: kubeRequests}
	running.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("operator.Run returned: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Errorf("operator did not stop within 30s of cancellation")
			}
			klog.Flush()
		})
	}
	t.Cleanup(func() {
		running.Stop()
		// The operator runs as its ServiceAccount: any refused request is a missing RBAC rule.
		if w.OpenStack != nil {
			for _, sentinel := range w.OpenStack.Sentinels() {
				if strings.Contains(logs.String(), sentinel) {
					t.Errorf("the operator's log shows one of the world's secrets:\n%s", RedactSentinel(LinesWith(logs.String(), sentinel), sentinel))
				}
			}
		}
		if undeclared := LinesWith(logs.String(), condition.ErrUndeclared.Error()); undeclared != "" {
			t.Errorf("a controller wrote a condition type its writer does not declare (pkg/operator/writers.go):\n%s", undeclared)
		}
		if denied := LinesWith(logs.String(), "is forbidden"); denied != "" && !running.skipRBAC {
			t.Errorf("the operator was refused requests under its ServiceAccount (a missing rule in manifests/):\n%s", denied)
		}
		LogOnFailure(t, "operator log", 200, logs.String())
	})
	return running
}

func protoConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c.ContentType = "application/vnd.kubernetes.protobuf"
	return c
}

// RedactSentinel masks the sentinel password in text printed by a failing test, so the failure report
// does not spread what it reports.
func RedactSentinel(text, sentinel string) string {
	return strings.ReplaceAll(text, sentinel, "<the world's password>")
}

// LinesWith returns the lines of s that contain substr.
func LinesWith(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// OpenStackKeystoneRequests counts the operator's requests to Keystone.
func (w *World) OpenStackKeystoneRequests(op *RunningOperator) int {
	return op.Requests.Count(fmt.Sprintf("127.0.0.1:%d", w.OpenStack.KeystonePort))
}
