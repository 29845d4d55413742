package framework

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// ShardEnv names the shard ("I/N", I from 0) this process is of N run side by side:
// hack/test-integration.sh gives each its index, and each hands out ports from its own Nth of the
// range, so that a world that stops a server for a while (an outage test) finds its port still free,
// not taken by another shard's new etcd or Keystone.
const ShardEnv = "TEST_SHARD"

// ports hands out each port at most once in the life of the process, so a server this process stopped
// keeps its port until it starts again.
var ports = struct {
	sync.Mutex
	lo, hi, next int
	given        map[int]bool
}{}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on right now and that this process
// has not handed out before, from below the kernel's ephemeral range (a port there may be the local end
// of an outgoing connection, which makes a later bind fail): its shard's part of it (TEST_SHARD), or all.
func FreePort() (int, error) {
	ports.Lock()
	defer ports.Unlock()
	if ports.given == nil {
		lo, hi, err := portRange(os.Getenv(ShardEnv), ephemeralLow())
		if err != nil {
			return 0, err
		}
		ports.lo, ports.hi, ports.given = lo, hi, map[int]bool{}
		// A random start: two processes without ranges of their own rarely try the same ports.
		ports.next = lo + rand.IntN(hi-lo+1)
	}
	for range ports.hi - ports.lo + 1 {
		p := ports.next
		if ports.next++; ports.next > ports.hi {
			ports.next = ports.lo
		}
		if ports.given[p] || !listenable(p) {
			continue
		}
		ports.given[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("no free port left in %d-%d", ports.lo, ports.hi)
}

// portRange is the ports from 10400 up to below the ephemeral range's start or, for shard "I/N", the
// Ith of N equal parts of them. From 10400: the operator's node DaemonSets are host-network and bind
// fixed ports below it (10305-10308) on a real node (RealNode), which shares this machine's network.
func portRange(shard string, ephemeralLo int) (int, int, error) {
	lo, hi := 10400, ephemeralLo-1
	if shard == "" {
		return lo, hi, nil
	}
	a, b, ok := strings.Cut(shard, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%s must be I/N with 0 <= I < N", ShardEnv)
	}
	span := (hi - lo + 1) / n
	return lo + i*span, lo + (i+1)*span - 1, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768 where it cannot be read or is
// too low to leave room below it).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil || lo <= 11000 {
		return 32768
	}
	return lo
}

func listenable(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}
