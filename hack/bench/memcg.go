package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// memcg is a memory cgroup of the operator process's own, so that its memory can be read as the
// kubelet reads a container's: the working set is the cgroup's usage minus its inactive file pages
// (cAdvisor's container_memory_working_set_bytes, which the kubelet's eviction and `kubectl top` use).
type memcg struct {
	dir string // empty when none could be made; then why says why
	v2  bool
	why string
}

// newMemcg makes a child of the bench's own memory cgroup (so every limit on the bench still applies
// to the operator), on cgroup v1's memory hierarchy or on v2 with the memory controller.
func newMemcg(name string) memcg {
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return memcg{why: err.Error()}
	}
	var v1Path, v2Path string
	hasV2Path := false
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, hasV2Path = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				v1Path = parts[2]
			}
		}
	}
	switch {
	case v1Path != "":
		parent := filepath.Join("/sys/fs/cgroup/memory", v1Path)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return memcg{why: fmt.Sprintf("cgroup v1 memory hierarchy: %v", err)}
		}
		return memcg{dir: dir}
	case hasV2Path:
		parent := filepath.Join("/sys/fs/cgroup", v2Path)
		controllers, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
		if err != nil || !strings.Contains(" "+string(controllers)+" ", " memory") {
			return memcg{why: "cgroup v2 without the memory controller for the bench's cgroup " + parent}
		}
		// A v2 cgroup's children get the memory controller only if the parent enables it, which it
		// may refuse while it holds processes itself (the bench): then there is no child to use.
		if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory"), 0o644); err != nil {
			return memcg{why: fmt.Sprintf("cgroup v2: enabling memory for children of %s: %v", parent, err)}
		}
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return memcg{why: fmt.Sprintf("cgroup v2: %v", err)}
		}
		return memcg{dir: dir, v2: true}
	}
	return memcg{why: "no memory cgroup in /proc/self/cgroup"}
}

// command runs bin inside the cgroup from its first instruction: a shell joins the cgroup and execs
// the binary, so the pid is the operator's and no page of it is charged elsewhere.
func (m memcg) command(bin string, args ...string) *exec.Cmd {
	if m.dir == "" {
		return exec.Command(bin, args...)
	}
	return exec.Command("/bin/sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`,
		filepath.Join(m.dir, "cgroup.procs"), bin}, args...)...)
}

// remove deletes the cgroup once its process has exited.
func (m memcg) remove() {
	if m.dir != "" {
		_ = os.Remove(m.dir)
	}
}

// workingSet is the process's memory as the kubelet counts it, with its parts.
type workingSet struct {
	// method names where the figures come from: the cgroup, or an approximation and why.
	method                 string
	workingSetKiB          int
	anonKiB, activeFileKiB int
	inactiveFileKiB        int
}

// read returns the cgroup's working set (usage - inactive_file, as cAdvisor computes it) or, without
// a cgroup, an approximation from the process's smaps_rollup.
func (m memcg) read(pid int) (workingSet, error) {
	if m.dir == "" {
		return approximateWorkingSet(pid, m.why)
	}
	usageFile, anon, active, inactive := "memory.usage_in_bytes", "total_rss", "total_active_file", "total_inactive_file"
	method := "cgroup v1 of its own: memory.usage_in_bytes - total_inactive_file"
	if m.v2 {
		usageFile, anon, active, inactive = "memory.current", "anon", "active_file", "inactive_file"
		method = "cgroup v2 of its own: memory.current - inactive_file"
	}
	b, err := os.ReadFile(filepath.Join(m.dir, usageFile))
	if err != nil {
		return workingSet{}, err
	}
	usage, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return workingSet{}, err
	}
	stat, err := readKeyed(filepath.Join(m.dir, "memory.stat"), 1)
	if err != nil {
		return workingSet{}, err
	}
	ws := usage
	if stat[inactive] < ws {
		ws -= stat[inactive]
	}
	return workingSet{method: method, workingSetKiB: int(ws / 1024), anonKiB: int(stat[anon] / 1024),
		activeFileKiB: int(stat[active] / 1024), inactiveFileKiB: int(stat[inactive] / 1024)}, nil
}

// approximateWorkingSet is what smaps_rollup allows without a cgroup: the anonymous pages plus the
// referenced pages beyond them, taken as the file pages in use (it cannot tell active file pages
// from inactive ones, and counts none of the kernel's memory for the process).
func approximateWorkingSet(pid int, why string) (workingSet, error) {
	kb, err := readKeyed(fmt.Sprintf("/proc/%d/smaps_rollup", pid), 1)
	if err != nil {
		return workingSet{}, err
	}
	file := max(kb["Referenced:"]-kb["Anonymous:"], 0)
	return workingSet{
		method:        "APPROXIMATION, no memory cgroup (" + why + "): smaps_rollup Anonymous + (Referenced - Anonymous)",
		workingSetKiB: int(kb["Anonymous:"] + file), anonKiB: int(kb["Anonymous:"]), activeFileKiB: int(file),
		inactiveFileKiB: int(kb["Rss:"] - kb["Anonymous:"] - file),
	}, nil
}

// readKeyed reads "key value ..." lines, the value in field index valueField.
func readKeyed(path string, valueField int) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > valueField {
			if v, err := strconv.ParseInt(fields[valueField], 10, 64); err == nil {
				out[fields[0]] = v
			}
		}
	}
	return out, sc.Err()
}

// dropFromPageCache evicts the binary's pages from the page cache, so the operator faults in (and its
// cgroup is charged for) every page of it that it touches, as on a node that has not cached the
// image's files: the worst case. Without it the pages `go build` wrote would stay charged to the
// builder's cgroup.
func dropFromPageCache(bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	return errors.Join(f.Sync(), unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED))
}
