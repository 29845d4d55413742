package framework

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// HangKeystone makes Keystone accept connections and never answer, as a hung API or a firewall that
// drops the replies does: its uwsgi processes are stopped (SIGSTOP), and the kernel still completes
// each TCP handshake into the listening socket's backlog. Clients wait for their own timeouts.
// ResumeKeystone (SIGCONT) lets it answer again. Nothing of the test may ask Keystone meanwhile.
func (o *OpenStack) HangKeystone() error { return o.signalService("keystone", syscall.SIGSTOP) }

// ResumeKeystone undoes HangKeystone.
func (o *OpenStack) ResumeKeystone() error { return o.signalService("keystone", syscall.SIGCONT) }

// HangManila and ResumeManila do the same to Manila's API.
func (o *OpenStack) HangManila() error   { return o.signalService("manila-api", syscall.SIGSTOP) }
func (o *OpenStack) ResumeManila() error { return o.signalService("manila-api", syscall.SIGCONT) }

// signalService signals the service's process (its pidfile under the instance's run directory) and
// every process below it (uwsgi's workers).
func (o *OpenStack) signalService(name string, sig syscall.Signal) error {
	b, err := os.ReadFile(filepath.Join(o.Dir, "run", name+".pid"))
	if err != nil {
		return fmt.Errorf("%s is not running: %w", name, err)
	}
	root, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("%s's pidfile: %w", name, err)
	}
	for _, pid := range processTree(root) {
		if err := syscall.Kill(pid, sig); err != nil && pid == root {
			return fmt.Errorf("signalling %s (pid %d): %w", name, pid, err)
		}
	}
	return nil
}

// processTree is root and its descendants, read from /proc.
func processTree(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
