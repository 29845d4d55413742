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
