#!/usr/bin/env python3
# cpuprofile.py OUT: samples /proc every second until SIGTERM/SIGINT, then writes to OUT the machine's busy
# share and the CPU seconds each kind of process used (by executable; Python programs and shell scripts
# by script) with the number of its processes seen, most first. How README's "where the time goes" was
# measured: start it, run hack/test-integration.sh, stop it.
# A process born and gone between two samples is missed; so is the last second of each.
import os, sys, time, signal, collections
HZ = os.sysconf('SC_CLK_TCK')
done = collections.Counter()
procs = collections.Counter()  # processes seen of each kind
def cat_of(pid):
    try:
        cmd = open(f'/proc/{pid}/cmdline','rb').read().split(b'\0')
    except Exception:
        return None
    if not cmd or not cmd[0]:
        return None
    exe = os.path.basename(cmd[0].decode(errors='replace'))
    args = b' '.join(cmd[1:4]).decode(errors='replace')
    if exe.startswith('python') or exe in ('uwsgi',):
        for c in cmd[1:]:
            s = c.decode(errors='replace')
            if 'keystone' in s: return 'py:keystone'
            if 'manila' in s: return 'py:' + os.path.basename(s)[:30]
            if s.endswith('.py') or '/' in s: return 'py:' + os.path.basename(s)[:30]
        return 'py:?'
    if exe in ('bash', 'sh') and len(cmd) > 1 and cmd[1]:
        # a script by its name; an inline one (-c) by its first words
        arg = cmd[1].decode(errors='replace')
        if arg == '-c' and len(cmd) > 2:
            return exe + ' -c ' + cmd[2].decode(errors='replace')[:30].replace('\n', ' ')
        return exe + ':' + os.path.basename(arg)[:30]
    return exe[:40]
def ticks(pid):
    try:
        f = open(f'/proc/{pid}/stat').read()
        rest = f[f.rindex(')')+2:].split()
        return int(rest[11]) + int(rest[12])
    except Exception:
        return None
def cpu():
    v = list(map(int, open('/proc/stat').readline().split()[1:]))
    idle = v[3] + v[4]
    return sum(v), idle
t0, i0 = cpu(); start = time.time()
stop = False
def on(sig, frm):
    global stop; stop = True
signal.signal(signal.SIGTERM, on); signal.signal(signal.SIGINT, on)
# What the processes already running had used before the first sample is not counted. Each sample
# adds a process's CPU since the last one to the kind its command line names now: a wrapper that
# exec's its program (hack/container-mounts.sh) counts as the program from then on.
prev = {pid: tk for pid, tk in ((int(d), ticks(int(d))) for d in os.listdir('/proc') if d.isdigit()) if tk is not None}
kind = {}  # pid -> its kind at the last sample
while not stop:
    seen = set()
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        pid = int(d); tk = ticks(pid)
        if tk is None: continue
        c = cat_of(pid)
        if c is None: continue
        seen.add(pid)
        if kind.get(pid) != c:
            procs[c] += 1
            kind[pid] = c
        was = prev.get(pid, 0)
        done[c] += tk - was if tk >= was else tk  # less than before: a new process with a reused PID
        prev[pid] = tk
    for pid in list(kind):
        if pid not in seen:
            kind.pop(pid); prev.pop(pid, None)
    time.sleep(1)
t1, i1 = cpu()
tot = sum(done.values())
out = open(sys.argv[1], 'w') if len(sys.argv) > 1 else sys.stdout
print(f'wall {time.time()-start:.0f}s busy {(1-(i1-i0)/(t1-t0))*100:.0f}% sampled cpu {tot/HZ:.0f}s', file=out)
for c, tk in done.most_common(40):
    print(f'{tk/HZ:9.1f}s {procs[c]:5d} {c}', file=out)
