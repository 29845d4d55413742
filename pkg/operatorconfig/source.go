package operatorconfig

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	corev1listers "k8s.io/client-go/listers/core/v1"
)

// Source gives controllers the configuration in force: the last valid one. It re-parses the
// ConfigMap from the informer's cache only when its resourceVersion changed.
type Source struct {
	lister     corev1listers.ConfigMapNamespaceLister
	validators []func(*Config) error

	mu      sync.Mutex
	version string
	valid   *Config
	err     error
}

// NewSource reads the ConfigMap through a lister scoped to the operator namespace. Validators check
// what Parse cannot know alone (e.g. extraMounts against the workloads); a failing one makes the
// configuration invalid like a parse error.
func NewSource(lister corev1listers.ConfigMapNamespaceLister, validators ...func(*Config) error) *Source {
	return &Source{lister: lister, validators: validators}
}

// Current returns the configuration in force and the problem with the ConfigMap as it is now, if
// any. cfg is nil only when no valid configuration was ever seen; an absent ConfigMap is valid and
// empty.
func (s *Source) Current() (cfg *Config, problem error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm, err := s.lister.Get(ConfigMapName)
	version := "absent"
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return s.valid, err
	default:
		version = cm.ResourceVersion
	}
	if version == s.version {
		return s.valid, s.err
	}
	s.version = version
	parsed, perr := &Config{}, error(nil)
	if cm != nil && err == nil {
		if data, ok := cm.Data[Key]; ok {
			parsed, perr = Parse([]byte(data))
		} else {
			perr = &FieldError{Path: "(ConfigMap data)", Reason: "key " + Key + " is missing"}
		}
	}
	for _, validate := range s.validators {
		if perr == nil {
			perr = validate(parsed)
		}
	}
	s.err = perr
	if perr == nil {
		s.valid = parsed
	}
	return s.valid, s.err
}
