// Package manilatypes is the operator's view of Manila share types: the ShareType domain type, which the
// pure planning code uses without depending on the OpenStack client, and the Store that hands each
// successful listing from the one poller to the controllers that use it, so a poll costs one Manila
// request however many consumers there are.
package manilatypes

import (
	"reflect"
	"sync"
)

// ShareType is what the operator needs to know of a Manila share type.
type ShareType struct {
	ID          string
	Name        string
	Description string
	IsPublic    bool
	IsDefault   bool
	// ExtraSpecs values are strings as Manila returns them ("True", "NFS", ...).
	ExtraSpecs map[string]string
	// AvailabilityZones are the Manila zones of the availability_zones extra spec, in its order;
	// empty when the type may create shares in any zone.
	AvailabilityZones []string
}

// Listing is one successful share-type listing. Seq counts listings since the operator started.
// Complete is false when the listing may lack share types that exist (only public ones could be
// listed): such a listing never makes a class stale or counts toward pruning.
type Listing struct {
	Seq      uint64
	Types    []ShareType
	Complete bool
	// Zones are Manila's availability zones, listed in the same poll only when topology is on;
	// nil when they were not listed.
	Zones []string
	// Unchanged is true when the previous listing had the same types, in the same order, the
	// same completeness and the same zones: most listings at rest, which consumers may then skip.
	Unchanged bool
}

// Store keeps the latest listing and tells subscribers when a new one arrives.
type Store struct {
	mu     sync.Mutex
	latest *Listing
	subs   []func()
}

// Publish records a successful listing (possibly empty) without zones and notifies subscribers.
func (s *Store) Publish(types []ShareType, complete bool) {
	s.PublishWithZones(types, complete, nil)
}

// PublishWithZones records a successful listing with Manila's zones (nil: not listed).
func (s *Store) PublishWithZones(types []ShareType, complete bool, zones []string) {
	s.mu.Lock()
	next := &Listing{Seq: 1, Types: types, Complete: complete, Zones: zones}
	if prev := s.latest; prev != nil {
		next.Seq = prev.Seq + 1
		next.Unchanged = prev.Complete == complete && reflect.DeepEqual(prev.Types, types) && reflect.DeepEqual(prev.Zones, zones)
	}
	s.latest = next
	subs := append([]func(){}, s.subs...)
	s.mu.Unlock()
	for _, notify := range subs {
		notify()
	}
}

// Latest returns the newest listing, or nil before the first.
func (s *Store) Latest() *Listing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest
}

// Subscribe registers a function called after every Publish; it must not block.
func (s *Store) Subscribe(notify func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = append(s.subs, notify)
}
