package framework

import (
	"os/exec"
	"syscall"
	"time"
)

// Process is a started command whose exit can be waited for any number of times (Exited is closed),
// so a caller that saw it exit can still stop it without hanging.
type Process struct {
	Cmd    *exec.Cmd
	Exited chan struct{}
	// Err is cmd.Wait's result, set before Exited is closed.
	Err error
}

// StartProcess starts cmd and watches for its exit.
func StartProcess(cmd *exec.Cmd) (*Process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, Exited: make(chan struct{})}
	go func() { p.Err = cmd.Wait(); close(p.Exited) }()
	return p, nil
}

// Stop sends SIGTERM and, if the process has not exited after grace, SIGKILL; it returns once the
// process has exited.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.Exited:
	case <-time.After(grace):
		_ = p.Cmd.Process.Kill()
		<-p.Exited
	}
}
