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

// sum covers the credentials and the CA bundle they were used with: a CA change is a new login.
func sum(cloudsYAML, caBundle []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(cloudsYAML)
	h.Write([]byte{0})
	h.Write(caBundle)
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}

// Record notes a successful login with cloudsYAML and caBundle (empty for none) and notifies
// subscribers when it is new.
func (c *Credentials) Record(cloudsYAML, caBundle []byte) {
	sum := sum(cloudsYAML, caBundle)
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

// Verified reports whether cloudsYAML and caBundle are what the last successful login used.
func (c *Credentials) Verified(cloudsYAML, caBundle []byte) bool {
	want := sum(cloudsYAML, caBundle)
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set && want == c.sum
}

// Subscribe registers a function called after each new Record; it must not block.
func (c *Credentials) Subscribe(notify func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs = append(c.subs, notify)
}
