// Package verified tells the secret sync which clouds.yaml the Manila controller has just logged in to
// Keystone with, so the driver only ever receives credentials that work.
package verified

import (
	"crypto/sha256"
	"sync"
)

// Credentials remembers the clouds.yaml content of the last successful login.
type Credentials struct {
	mu   sync.Mutex
	sum  [sha256.Size]byte
	set  bool
	subs []func()
}

// Record notes a successful login with cloudsYAML and notifies subscribers when it is new.
func (c *Credentials) Record(cloudsYAML []byte) {
	sum := sha256.Sum256(cloudsYAML)
	c.mu.Lock()
	changed := !c.set || sum != c.sum
	c.sum, c.set = sum, true
	subs := append([]func(){}, c.subs...)
	c.mu.Unlock()
	if changed {
		for _, notify := range subs {
			notify()
		}
	}
}

// Verified reports whether cloudsYAML is what the last successful login used.
func (c *Credentials) Verified(cloudsYAML []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set && sha256.Sum256(cloudsYAML) == c.sum
}

// Subscribe registers a function called after each new Record; it must not block.
func (c *Credentials) Subscribe(notify func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs = append(c.subs, notify)
}
