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
	legacy     corev1listers.ConfigMapNamespaceLister
	validators []func(*Config) error
	persisted  func() (string, bool)

	mu      sync.Mutex
	version string
	// fromLegacy is whether what was last read came from LegacyConfigMapName.
	fromLegacy bool
	valid      *Config
	validRaw   string
	err        error
}

// NewSource reads the ConfigMap through a lister scoped to the operator namespace. Validators check
// what Parse cannot know alone (e.g. extraMounts against the workloads); a failing one makes the
// configuration invalid like a parse error.
func NewSource(lister corev1listers.ConfigMapNamespaceLister, validators ...func(*Config) error) *Source {
	return &Source{lister: lister, validators: validators}
}

// WithPersisted sets where an earlier process stored its last valid configuration (config.yaml
// text): it is in force while this process has seen no valid one, so a restart during an invalid
// edit keeps the admin's last good settings. It is parsed and validated like the ConfigMap.
func (s *Source) WithPersisted(persisted func() (string, bool)) *Source {
	s.persisted = persisted
	return s
}

// WithLegacy reads LegacyConfigMapName through lister while ConfigMapName does not exist, unless it
// holds cluster-storage-operator's GenericOperatorConfig (then it is as if absent).
func (s *Source) WithLegacy(lister corev1listers.ConfigMapNamespaceLister) *Source {
	s.legacy = lister
	return s
}

// Legacy returns the config.yaml text of LegacyConfigMapName when that is the configuration in force
// and valid: it is to be copied to ConfigMapName, after which the legacy name is no longer read.
func (s *Source) Legacy() (raw string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return s.validRaw, s.fromLegacy && s.err == nil && s.valid != nil
}

// Current returns the configuration in force and the problem with the ConfigMap as it is now, if
// any. cfg is nil only when no valid configuration was ever seen (in this process or persisted); an
// absent ConfigMap is valid and empty.
func (s *Source) Current() (cfg *Config, problem error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return s.valid, s.err
}

// LastValid returns the config.yaml text of the configuration in force, for persisting it; ok is
// false when there is none or the ConfigMap as it is now is invalid.
func (s *Source) LastValid() (raw string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return s.validRaw, s.valid != nil && s.err == nil
}

func (s *Source) refresh() {
	cm, err := s.lister.Get(ConfigMapName)
	version := "absent"
	fromLegacy := false
	if apierrors.IsNotFound(err) && s.legacy != nil {
		if old, lerr := s.legacy.Get(LegacyConfigMapName); lerr == nil && !IsGenericOperatorConfig(old.Data[Key]) {
			cm, err, fromLegacy = old, nil, true
		}
	}
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		s.err = err
		return
	case fromLegacy:
		version = "legacy/" + cm.ResourceVersion
	default:
		version = cm.ResourceVersion
	}
	s.fromLegacy = fromLegacy
	if version == s.version {
		if s.valid == nil {
			s.fallBack()
		}
		return
	}
	s.version = version
	raw, perr := "", error(nil)
	if cm != nil && err == nil {
		if data, ok := cm.Data[Key]; ok {
			raw = data
		} else {
			perr = &FieldError{Path: "(ConfigMap data)", Reason: "key " + Key + " is missing"}
		}
	}
	var parsed *Config
	if perr == nil {
		parsed, perr = s.parse(raw)
	}
	s.err = perr
	if perr == nil {
		s.valid, s.validRaw = parsed, raw
	} else if s.valid == nil {
		s.fallBack()
	}
}

// fallBack adopts the persisted configuration when this process has no valid one.
func (s *Source) fallBack() {
	if s.persisted == nil {
		return
	}
	raw, ok := s.persisted()
	if !ok {
		return
	}
	if cfg, err := s.parse(raw); err == nil {
		s.valid, s.validRaw = cfg, raw
	}
}

func (s *Source) parse(raw string) (*Config, error) {
	cfg, err := Parse([]byte(raw))
	for _, validate := range s.validators {
		if err == nil {
			err = validate(cfg)
		}
	}
	return cfg, err
}
