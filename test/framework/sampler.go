package framework

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Changes is every version of one object a watch delivered until the test ends, each rendered as a
// line, consecutive equal lines kept once: what an observer that watches (OpenShift's upgrade
// monitors watch ClusterOperators) sees, for asserting that something never happened after
// something else. No version is skipped: the watch resumes from the last version it delivered after
// any break, and if the API server no longer has that version (410 Gone) the re-list is recorded as
// a gap, which fails the test unless nothing changed in between.
type Changes struct {
	mu    sync.Mutex
	lines []string
	times []time.Time
	// lastRV is the resourceVersion of the last version recorded ("" for none or absent).
	lastRV string
	gaps   []string
}

// Absent is the line of an object that does not exist (not yet created, or deleted).
const Absent = "(absent)"

// OneObject lists and watches the object of the name in the resource (namespace "" when
// cluster-scoped) through a typed client's REST client.
func OneObject(c cache.Getter, resource, namespace, name string) cache.ListerWatcherWithContext {
	return cache.ToListerWatcherWithContext(cache.NewListWatchFromClient(c, resource, namespace, fields.OneTermEqualSelector("metadata.name", name)))
}

// WatchChanges records obj's versions, rendered by render, from the first list's resourceVersion
// until the test ends.
func WatchChanges[T runtime.Object](t testing.TB, lw cache.ListerWatcherWithContext, render func(T) string) *Changes {
	t.Helper()
	c := &Changes{}
	typed := func(o runtime.Object) (string, error) {
		v, ok := o.(T)
		if !ok {
			return "", fmt.Errorf("watched a %T, not a %T", o, v)
		}
		return render(v), nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			rv, err := c.list(ctx, lw, typed)
			if err == nil {
				err = c.watch(ctx, lw, rv, typed)
			}
			if err != nil && ctx.Err() == nil {
				// An API server restarting: list again shortly (a retry, not a wait on the world).
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, g := range c.Gaps() {
			t.Errorf("the recorder may have missed versions: %s", g)
		}
	})
	return c
}

// list records the object as the API server has it now and returns the list's resourceVersion. A
// version different from the last one recorded before (a re-list after the watch's version was gone)
// is a gap.
func (c *Changes) list(ctx context.Context, lw cache.ListerWatcherWithContext, render renderer) (string, error) {
	list, err := lw.ListWithContext(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return "", err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", err
	}
	line, rv := Absent, ""
	if len(items) > 0 {
		if line, err = render(items[0]); err != nil {
			return "", err
		}
		if o, err := meta.Accessor(items[0]); err == nil {
			rv = o.GetResourceVersion()
		}
	}
	c.mu.Lock()
	if len(c.lines) > 0 && c.lastRV != rv {
		c.gaps = append(c.gaps, fmt.Sprintf("re-listed at %s: last version seen %q, now %q", time.Now().Format("15:04:05.0"), c.lastRV, rv))
	}
	c.mu.Unlock()
	c.record(line, rv)
	return listMeta.GetResourceVersion(), nil
}

// watch records every version from rv on until the context ends (nil) or the watch cannot resume
// (an error: list again).
func (c *Changes) watch(ctx context.Context, lw cache.ListerWatcherWithContext, rv string, render renderer) error {
	w, err := watchtools.NewRetryWatcherWithContext(ctx, rv, lw)
	if err != nil {
		return err
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		switch ev.Type {
		case watch.Added, watch.Modified:
			line, err := render(ev.Object)
			if err != nil {
				return err
			}
			o, err := meta.Accessor(ev.Object)
			if err != nil {
				return err
			}
			c.record(line, o.GetResourceVersion())
		case watch.Deleted:
			c.record(Absent, "")
		case watch.Error:
			// 410 Gone (the version is no longer kept) or a refusal: list again.
			return apierrors.FromObject(ev.Object)
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	return errors.New("the watch stopped")
}

// renderer renders one version of the watched object as its line.
type renderer func(runtime.Object) (string, error)

func (c *Changes) record(line, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.lines) == 0 || c.lines[len(c.lines)-1] != line {
		c.lines = append(c.lines, line)
		c.times = append(c.times, time.Now())
	}
	c.lastRV = rv
}

// Lines are the changes so far.
func (c *Changes) Lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.lines)
}

// Gaps are the re-lists after which versions may have been missed.
func (c *Changes) Gaps() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.gaps)
}

// Since is the index of the first change seen at or after when (len(Lines()) when none is).
func (c *Changes) Since(when time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, at := range c.times {
		if !at.Before(when) {
			return i
		}
	}
	return len(c.times)
}

// SettledSince is when the change was first seen from which on every change so far is ok (false when
// the last one is not).
func (c *Changes) SettledSince(ok func(string) bool) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := len(c.lines)
	for i > 0 && ok(c.lines[i-1]) {
		i--
	}
	if i == len(c.lines) {
		return time.Time{}, false
	}
	return c.times[i], true
}

// Timeline is the changes so far, each after the time it was first seen.
func (c *Changes) Timeline() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.lines))
	for i, l := range c.lines {
		out[i] = c.times[i].Format("15:04:05.000") + " " + l
	}
	return out
}

// After returns the changes, from the first for which first is true on, for which bad is true.
func (c *Changes) After(first, bad func(string) bool) []string {
	var out []string
	seen := false
	for _, l := range c.Lines() {
		seen = seen || first(l)
		if seen && bad(l) {
			out = append(out, l)
		}
	}
	return out
}
