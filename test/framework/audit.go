package framework

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// AuditEvent is what the tests read of one kube-apiserver audit log line (Metadata level).
type AuditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string              `json:"username"`
		Extra    map[string][]string `json:"extra"`
	} `json:"user"`
	UserAgent      string          `json:"userAgent"`
	ObjectRef      *AuditObjectRef `json:"objectRef"`
	ResponseStatus *struct {
		Code   int    `json:"code"`
		Reason string `json:"reason"`
	} `json:"responseStatus"`
	StageTimestamp time.Time `json:"stageTimestamp"`
}

// AuditObjectRef is the object an audited request was about.
type AuditObjectRef struct {
	Resource    string `json:"resource"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Subresource string `json:"subresource"`
}

// Pod is the pod whose bound token made the request ("" for another token).
func (e AuditEvent) Pod() string {
	if p := e.User.Extra["authentication.kubernetes.io/pod-name"]; len(p) == 1 {
		return p[0]
	}
	return ""
}

// Program is the client program that made the request: its user agent's first part, which client-go
// makes of the executable's name (for two processes sharing one identity, as the operators sharing a
// hosted guest's kubeconfig).
func (e AuditEvent) Program() string {
	program, _, _ := strings.Cut(e.UserAgent, "/")
	return program
}

// Write is whether the request changed an object: a create, update, patch or delete that succeeded.
func (e AuditEvent) Write() bool {
	return e.Stage == "ResponseComplete" && e.ResponseStatus != nil && e.ResponseStatus.Code < 300 && e.ObjectRef != nil &&
		slices.Contains(writeVerbs, e.Verb)
}

var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection"}

// RefusedWrite is whether the request was a create, update, patch or delete that the API server
// refused (a conflict, an invalid object or a failed test of a JSON patch).
func (e AuditEvent) RefusedWrite() bool {
	return e.Stage == "ResponseComplete" && e.ResponseStatus != nil && e.ResponseStatus.Code >= 400 && e.ObjectRef != nil &&
		slices.Contains(writeVerbs, e.Verb)
}

func (e AuditEvent) String() string {
	ref := ""
	if e.ObjectRef != nil {
		ref = fmt.Sprintf("%s %s/%s", e.ObjectRef.Resource, e.ObjectRef.Namespace, e.ObjectRef.Name)
		if e.ObjectRef.Subresource != "" {
			ref += "/" + e.ObjectRef.Subresource
		}
	}
	by := "pod " + e.Pod()
	if e.Pod() == "" {
		by = e.Program()
	}
	return fmt.Sprintf("%s %s %s by %s", e.StageTimestamp.Format("15:04:05.000000"), e.Verb, ref, by)
}

// ReadAudit returns the audit log's events that completed at or after since, in the log's order.
// The API server may be writing its last line: a line without its newline is not read yet.
func ReadAudit(path string, since time.Time) ([]AuditEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditEvent
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return out, nil // nothing more, or a line still being written
		}
		if err != nil {
			return nil, err
		}
		var e AuditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if !e.StageTimestamp.Before(since) {
			out = append(out, e)
		}
	}
}

// Turns are the runs of writes by one side: each write's side (sideOf; "" skips the write), with
// consecutive writes of the same side made one turn, its first and last write kept.
func Turns(events []AuditEvent, sideOf func(AuditEvent) string) []Turn {
	var turns []Turn
	for _, e := range events {
		side := sideOf(e)
		if side == "" {
			continue
		}
		if n := len(turns); n > 0 && turns[n-1].Side == side {
			turns[n-1].Last, turns[n-1].Writes = e, turns[n-1].Writes+1
			continue
		}
		turns = append(turns, Turn{Side: side, First: e, Last: e, Writes: 1})
	}
	return turns
}

// Turn is one side's run of writes, uninterrupted by the other side's.
type Turn struct {
	Side        string
	First, Last AuditEvent
	Writes      int
}

func (t Turn) String() string {
	return fmt.Sprintf("%s: %d writes, from %s to %s", t.Side, t.Writes, t.First, t.Last)
}
