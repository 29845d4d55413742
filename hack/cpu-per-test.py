#!/usr/bin/env python3
# cpu-per-test.py OUT: while hack/test-integration.sh runs, moves each shard's test process into a
# cpuacct cgroup (v1, /sys/fs/cgroup/cpuacct/it/) named after the top-level test it runs (its shard
# log's last "=== RUN   TestX"), so that what each test starts is counted to it; on SIGTERM, writes
# each test's CPU seconds to OUT, most first. world-N is the shard's world (started before its first
# test) with the requests it serves to every test of the shard. A process a test restarts for the
# shard (an API server restarted mid-run) counts to that test from then on; what containerd moves
# into its own cgroups (the real node's pods) counts to none. How docs/benchmark.md's per-test table
# was measured: start it as root, run make test, then kill it.
import os, re, glob, time, signal, sys
CG = '/sys/fs/cgroup/cpuacct/it'
os.makedirs(CG, exist_ok=True)
cur = {}  # pid -> test
stop = False
def term(*_):
    global stop; stop = True
signal.signal(signal.SIGTERM, term); signal.signal(signal.SIGINT, term)
RUN = re.compile(rb'=== RUN   (Test[^/\s]+)\s*$')
def shard_of(pid):
    try:
        env = open(f'/proc/{pid}/environ', 'rb').read().split(b'\0')
    except Exception:
        return None
    for e in env:
        if e.startswith(b'TEST_SHARD='):
            return e[11:].decode().split('/')[0]
    return None
def move(pid, name):
    d = os.path.join(CG, name); os.makedirs(d, exist_ok=True)
    try:
        open(os.path.join(d, 'cgroup.procs'), 'w').write(str(pid))
    except Exception as e:
        pass
while not stop:
    pids = {}
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            comm = open(f'/proc/{p}/comm').read().strip()
        except Exception:
            continue
        if comm == 'integration.tes':
            s = shard_of(p)
            if s is not None: pids[s] = int(p)
    for s, pid in pids.items():
        test = 'world-' + s
        for log in glob.glob(f'/tmp/tmp.*/shard-{s}.log'):
            try:
                data = open(log, 'rb').read()
            except Exception:
                continue
            for line in reversed(data.splitlines()):
                m = RUN.search(line)
                if m: test = m.group(1).decode(); break
        if cur.get(pid) != test:
            move(pid, test); cur[pid] = test
    time.sleep(0.2)
rows = []
for d in glob.glob(CG + '/*/'):
    try:
        rows.append((int(open(d + 'cpuacct.usage').read()) / 1e9, os.path.basename(d.rstrip('/'))))
    except Exception:
        pass
rows.sort(reverse=True)
with open(sys.argv[1], 'w') as f:
    f.write('total %.0f CPU s\n' % sum(r[0] for r in rows))
    for s, n in rows:
        f.write('%8.1f %s\n' % (s, n))
