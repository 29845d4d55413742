// Package eventrecorder is library-go's event Recorder over one client-go event broadcaster.
//
// library-go's kube recorder starts a new broadcaster (a correlator with its caches, two watchers with
// 1,000-event buffers, and their goroutines) for every component name, and each controller asks for
// its own name: 34 broadcasters, about 4 MB and 130 goroutines at rest. Here every component name is a
// recorder of the same broadcaster, so events keep their per-controller source (which the spam filter
// and aggregation key on) at the cost of one.
package eventrecorder

import (
	"context"
	"fmt"
	"sync"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Recorder records events about one object under a component name.
type Recorder struct {
	shared    *shared
	component string
	recorder  record.EventRecorder
}

// shared is what every component's Recorder has in common.
type shared struct {
	broadcaster record.EventBroadcaster
	about       *corev1.ObjectReference
	// direct creates events without the broadcaster once it is shut down.
	direct events.Recorder

	mu           sync.RWMutex
	shuttingDown bool
	shutdown     sync.Once
}

var _ events.Recorder = &Recorder{}

// New starts the broadcaster, which logs every event and sends it to client, and returns the
// recorder of component. Events are about the object about (the operator's Deployment).
func New(client corev1client.EventInterface, options record.CorrelatorOptions, component string, about *corev1.ObjectReference, clk clock.PassiveClock) *Recorder {
	broadcaster := record.NewBroadcasterWithCorrelatorOptions(options)
	broadcaster.StartLogging(klog.Infof)
	broadcaster.StartRecordingToSink(&corev1client.EventSinkImpl{Interface: client})
	s := &shared{broadcaster: broadcaster, about: about, direct: events.NewRecorder(client, component, about, clk)}
	return s.forComponent(component)
}

func (s *shared) forComponent(component string) *Recorder {
	return &Recorder{shared: s, component: component,
		recorder: s.broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})}
}

func (r *Recorder) Event(reason, message string) { r.record(corev1.EventTypeNormal, reason, message) }
func (r *Recorder) Warning(reason, message string) {
	r.record(corev1.EventTypeWarning, reason, message)
}

func (r *Recorder) Eventf(reason, messageFmt string, args ...interface{}) {
	r.Event(reason, fmt.Sprintf(messageFmt, args...))
}

func (r *Recorder) Warningf(reason, messageFmt string, args ...interface{}) {
	r.Warning(reason, fmt.Sprintf(messageFmt, args...))
}

func (r *Recorder) record(eventType, reason, message string) {
	r.shared.mu.RLock()
	defer r.shared.mu.RUnlock()
	if r.shared.shuttingDown {
		direct := r.shared.direct.ForComponent(r.component)
		if eventType == corev1.EventTypeWarning {
			direct.Warning(reason, message)
		} else {
			direct.Event(reason, message)
		}
		return
	}
	r.recorder.Event(r.shared.about, eventType, reason, message)
}

// ForComponent returns the recorder of another component name, on the same broadcaster.
func (r *Recorder) ForComponent(component string) events.Recorder {
	return r.shared.forComponent(component)
}

// WithComponentSuffix returns the recorder of this component's name with a suffix.
func (r *Recorder) WithComponentSuffix(suffix string) events.Recorder {
	return r.ForComponent(r.component + "-" + suffix)
}

// WithContext is accepted for the interface; the broadcaster sends events on its own.
func (r *Recorder) WithContext(context.Context) events.Recorder { return r }

func (r *Recorder) ComponentName() string { return r.component }

// Shutdown flushes the broadcaster once; events recorded afterwards are created directly.
func (r *Recorder) Shutdown() {
	r.shared.mu.Lock()
	r.shared.shuttingDown = true
	r.shared.mu.Unlock()
	r.shared.shutdown.Do(r.shared.broadcaster.Shutdown)
}
