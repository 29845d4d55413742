package framework

import (
	"net/http"
	"strings"
	"sync"
	"time"
)

// RequestCounter counts HTTP requests by "METHOD host path" and by host, and keeps their outcomes.
type RequestCounter struct {
	mu       sync.Mutex
	byHost   map[string]int
	log      []string
	outcomes []Outcome
}

// Outcome is how one request ended: its status, or 0 when no response came (refused, timed out).
// Sent is when it was sent, At when it ended.
type Outcome struct {
	Sent    time.Time
	At      time.Time
	Request string
	Status  int
}

// Wrap is an operator.Options.OpenStackTransport.
func (c *RequestCounter) Wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		c.mu.Lock()
		if c.byHost == nil {
			c.byHost = map[string]int{}
		}
		c.byHost[req.URL.Host]++
		c.log = append(c.log, req.Method+" "+req.URL.Host+req.URL.Path)
		c.mu.Unlock()
		sent := time.Now()
		resp, err := next.RoundTrip(req)
		o := Outcome{Sent: sent, At: time.Now(), Request: req.Method + " " + req.URL.Host + req.URL.Path}
		if err == nil {
			o.Status = resp.StatusCode
		}
		c.mu.Lock()
		c.outcomes = append(c.outcomes, o)
		c.mu.Unlock()
		return resp, err
	})
}

// Outcomes returns how every request so far ended, in the order they ended.
func (c *RequestCounter) Outcomes() []Outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Outcome(nil), c.outcomes...)
}

// Count returns how many requests went to host ("127.0.0.1:port").
func (c *RequestCounter) Count(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byHost[host]
}

// Writes returns the requests so far that change something (POST, PUT, PATCH, DELETE).
func (c *RequestCounter) Writes() []string {
	var out []string
	for _, r := range c.Log() {
		if !strings.HasPrefix(r, "GET ") {
			out = append(out, r)
		}
	}
	return out
}

// Log returns every request so far.
func (c *RequestCounter) Log() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
