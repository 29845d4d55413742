package operatorconfig

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func lister(t *testing.T, data map[string]string, version string) corev1listers.ConfigMapNamespaceLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if data != nil {
		if err := idx.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: "ns", ResourceVersion: version}, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	return corev1listers.NewConfigMapLister(idx).ConfigMaps("ns")
}

// A new process whose admin ConfigMap is invalid uses the configuration an earlier process persisted.
func TestSourcePersistedFallback(t *testing.T) {
	invalid := map[string]string{Key: "pollInterval: soon"}
	persisted := "pollInterval: 42s\n"
	for _, tc := range []struct {
		name      string
		data      map[string]string
		persisted *string
		wantPoll  string // "" means no configuration in force
		wantErr   bool
	}{
		{name: "invalid, nothing persisted", data: invalid, wantErr: true},
		{name: "invalid, persisted one in force", data: invalid, persisted: &persisted, wantPoll: "42s", wantErr: true},
		{name: "valid wins over persisted", data: map[string]string{Key: "pollInterval: 7s"}, persisted: &persisted, wantPoll: "7s"},
		{name: "absent is valid and empty", persisted: &persisted, wantPoll: "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSource(lister(t, tc.data, "1"))
			if tc.persisted != nil {
				s.WithPersisted(func() (string, bool) { return *tc.persisted, true })
			}
			cfg, problem := s.Current()
			if (problem != nil) != tc.wantErr {
				t.Errorf("problem %v, want error %v", problem, tc.wantErr)
			}
			got := ""
			if cfg != nil {
				got = "default"
				if cfg.PollInterval != nil {
					got = cfg.PollInterval.Duration.String()
				}
			}
			if got != tc.wantPoll {
				t.Errorf("poll interval in force %q, want %q", got, tc.wantPoll)
			}
			raw, ok := s.LastValid()
			if ok == tc.wantErr {
				t.Errorf("LastValid ok=%v with problem=%v", ok, problem)
			}
			if ok && tc.data != nil && raw != tc.data[Key] {
				t.Errorf("LastValid %q, want the ConfigMap's text", raw)
			}
		})
	}
}

// legacyLister holds the legacy ConfigMap with data (none when nil) and, when current is set, the
// new one too.
func legacyLister(t *testing.T, legacy, current map[string]string) corev1listers.ConfigMapNamespaceLister {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for name, data := range map[string]map[string]string{LegacyConfigMapName: legacy, ConfigMapName: current} {
		if data == nil {
			continue
		}
		if err := idx.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", ResourceVersion: "1"}, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	return corev1listers.NewConfigMapLister(idx).ConfigMaps("ns")
}

// cluster-storage-operator's content under the legacy name is nobody's error, and the admin's
// legacy configuration is in force (to be migrated) only while the new name is absent.
func TestSourceLegacyName(t *testing.T) {
	generic := map[string]string{Key: "apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\nservingInfo:\n  minTLSVersion: VersionTLS12\n"}
	admins := map[string]string{Key: "pollInterval: 42s\n"}
	for _, tc := range []struct {
		name            string
		legacy, current map[string]string
		wantPoll        string
		wantLegacy      bool
	}{
		{name: "CSO's GenericOperatorConfig, no new ConfigMap: absent, valid", legacy: generic, wantPoll: "default"},
		{name: "the admin's legacy configuration: in force, to migrate", legacy: admins, wantPoll: "42s", wantLegacy: true},
		{name: "the new name wins", legacy: admins, current: map[string]string{Key: "pollInterval: 7s\n"}, wantPoll: "7s"},
		{name: "neither", wantPoll: "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := legacyLister(t, tc.legacy, tc.current)
			s := NewSource(l).WithLegacy(l)
			cfg, problem := s.Current()
			if problem != nil || cfg == nil {
				t.Fatalf("Current() = %v, %v", cfg, problem)
			}
			got := "default"
			if cfg.PollInterval != nil {
				got = cfg.PollInterval.Duration.String()
			}
			if got != tc.wantPoll {
				t.Errorf("poll interval in force %q, want %q", got, tc.wantPoll)
			}
			if raw, ok := s.Legacy(); ok != tc.wantLegacy || (ok && raw != tc.legacy[Key]) {
				t.Errorf("Legacy() = %q, %v; want %v", raw, ok, tc.wantLegacy)
			}
		})
	}
}

func TestIsGenericOperatorConfig(t *testing.T) {
	for raw, want := range map[string]bool{
		"apiVersion: operator.openshift.io/v1alpha1\nkind: GenericOperatorConfig\n": true,
		"kind: GenericOperatorConfig\n":                                             true,
		"pollInterval: 1m\n":                                                        false,
		"{not yaml":                                                                 false,
	} {
		if got := IsGenericOperatorConfig(raw); got != want {
			t.Errorf("IsGenericOperatorConfig(%q) = %v, want %v", raw, got, want)
		}
	}
}
