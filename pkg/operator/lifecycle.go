package operator

import (
	"fmt"
)

// The start command's life is one state machine: a phase does its work and ends with an event, and
// lifeTransitions alone says what follows. A phase retries every failure to read or write the
// cluster while the process leads (life.retry); only an input no retry can mend ends it with
// evFailed. done is the one exit: the error the process ends with follows from the last event
// (exitError).
type phase int

const (
	// connecting reads the settings and, hosted, the guest kubeconfig, and starts the lease gate.
	connecting phase = iota
	// awaiting waits for the ClusterCSIDriver and for no predecessor to lead.
	awaiting
	// leading runs the informers and controllers.
	leading
	// yielding: a predecessor leads; the controllers are stopped and the ClusterCSIDriver handed back.
	yielding
	// handingOver: the process stops; a predecessor that leads gets the ClusterCSIDriver back.
	handingOver
	// done ends the process.
	done
)

func (p phase) String() string {
	return [...]string{"connecting", "awaiting", "leading", "yielding", "handing over", "done"}[p]
}

// event is how a phase ended.
type event int

const (
	// evReady: the phase's work is done.
	evReady event = iota
	// evPredecessorLeads: one of OpenShift's own Manila operators took its lease.
	evPredecessorLeads
	// evPredecessorLetGo: the predecessor that led in this operator's place let go of its lease.
	evPredecessorLetGo
	// evStopping: the process was asked to stop (SIGTERM).
	evStopping
	// evLeaseLost: the process stopped leading while it was not asked to stop.
	evLeaseLost
	// evFailed: an input that no retry mends (the environment's settings, the assets).
	evFailed
)

func (e event) String() string {
	return [...]string{"ready", "a predecessor leads", "the predecessor let go", "stopping", "lease lost", "failed"}[e]
}

// lifeTransitions is every transition of the start command's life; a pair missing here is a bug.
var lifeTransitions = map[phase]map[event]phase{
	connecting:  {evReady: awaiting, evStopping: done, evLeaseLost: done, evFailed: done},
	awaiting:    {evReady: leading, evStopping: done, evLeaseLost: done, evFailed: done},
	leading:     {evPredecessorLeads: yielding, evStopping: handingOver, evLeaseLost: done, evFailed: done},
	yielding:    {evPredecessorLetGo: done, evStopping: handingOver, evLeaseLost: done},
	handingOver: {evReady: done},
}

// next is the phase after p ended with e.
func next(p phase, e event) (phase, error) {
	n, ok := lifeTransitions[p][e]
	if !ok {
		return done, fmt.Errorf("the operator's life has no transition from %s on %s", p, e)
	}
	return n, nil
}

// exitError is what the process ends with after its last event: nil when it was asked to stop, an
// error (a non-zero exit, and the pod restarts it) otherwise. A predecessor that let go is an exit
// too: informers and controllers cannot be started twice in one process, so a new one takes over.
func exitError(e event, err error) error {
	switch e {
	case evStopping, evReady:
		return nil
	case evLeaseLost:
		return errLostLease
	case evPredecessorLetGo:
		return errPredecessorLetGo
	}
	return err
}
