package hooks

import (
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	opv1 "github.com/openshift/api/operator/v1"
	configv1listers "github.com/openshift/client-go/config/listers/config/v1"
	"github.com/openshift/library-go/pkg/operator/events"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

func infrastructures(t *testing.T, name string) configv1listers.InfrastructureLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := idx.Add(&configv1.Infrastructure{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Status: configv1.InfrastructureStatus{InfrastructureName: name}}); err != nil {
		t.Fatal(err)
	}
	return configv1listers.NewInfrastructureLister(idx)
}

func spec(observed string) *opv1.OperatorSpec {
	return &opv1.OperatorSpec{ObservedConfig: runtime.RawExtension{Raw: []byte(observed)}}
}

func deployment() *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "controller"}, Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{
			{Name: "csi-driver", Args: []string{"--cluster-id=" + InfrastructureNamePlaceholder}},
			{Name: "proxy", Args: []string{"--tls-cipher-suites=" + CipherSuitesPlaceholder, "--tls-min-version=" + MinTLSVersionPlaceholder}},
		}}}}}
}

const goodTLS = `{"targetcsiconfig":{"servingInfo":{"cipherSuites":["TLS_AES_128_GCM_SHA256"],"minTLSVersion":"VersionTLS13"}}}`

// The values fill one argument each; a refused value leaves the Deployment untouched and names the
// field, with one event per new refusal.
func TestClusterValues(t *testing.T) {
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	v := &ClusterValues{Infrastructures: infrastructures(t, "ostest-x7k2p"), Recorder: recorder}
	d := deployment()
	if err := v.Deployment()(spec(goodTLS), d); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(append(d.Spec.Template.Spec.Containers[0].Args, d.Spec.Template.Spec.Containers[1].Args...), " ")
	if want := "--cluster-id=ostest-x7k2p --tls-cipher-suites=TLS_AES_128_GCM_SHA256 --tls-min-version=VersionTLS13"; got != want {
		t.Errorf("args %q, want %q", got, want)
	}

	tests := []struct {
		name, infra, observed, naming string
	}{
		{"infrastructure name", `x","extra":"y`, goodTLS, "Infrastructure cluster status.infrastructureName"},
		{"cipher", "ostest", `{"targetcsiconfig":{"servingInfo":{"cipherSuites":["A\"}],\"x\":[{"],"minTLSVersion":"VersionTLS12"}}}`, "servingInfo.cipherSuites[0]"},
		{"proxy key", "ostest", `{"targetcsiconfig":{"proxy":{"LD_PRELOAD":"/x"},"servingInfo":{"cipherSuites":["TLS_AES_128_GCM_SHA256"],"minTLSVersion":"VersionTLS12"}}}`, "targetcsiconfig.proxy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
			v := &ClusterValues{Infrastructures: infrastructures(t, tc.infra), Recorder: recorder}
			d := deployment()
			before := d.DeepCopy()
			for range 3 {
				err := v.Deployment()(spec(tc.observed), d)
				if err == nil || !strings.Contains(err.Error(), tc.naming) {
					t.Fatalf("error %v, want one naming %s", err, tc.naming)
				}
			}
			if d.Spec.Template.Spec.Containers[0].Args[0] != before.Spec.Template.Spec.Containers[0].Args[0] ||
				d.Spec.Template.Spec.Containers[1].Args[0] != before.Spec.Template.Spec.Containers[1].Args[0] {
				t.Errorf("a refused value changed the Deployment: %v", d.Spec.Template.Spec.Containers)
			}
			if n := len(recorder.Events()); n != 1 {
				t.Errorf("%d events for one refusal, want 1", n)
			}
		})
	}
}

// The node DaemonSets take the proxy only: a bad one is refused, the TLS profile does not matter.
func TestClusterValuesDaemonSet(t *testing.T) {
	v := &ClusterValues{}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "node"}}
	if err := v.DaemonSet()(spec(`{}`), ds); err != nil {
		t.Errorf("no proxy: %v", err)
	}
	if err := v.DaemonSet()(spec(`{"targetcsiconfig":{"proxy":{"HTTP_PROXY":"x\ny"}}}`), ds); err == nil || !strings.Contains(err.Error(), "HTTP_PROXY") {
		t.Errorf("bad proxy: %v, want a refusal naming HTTP_PROXY", err)
	}
}
