#!/usr/bin/env bash
# Runs the integration tests (test/integration) in INTEGRATION_SHARDS processes side by side, each
# against its own test world on ports of its own range. Within one world the tests share the
# ClusterCSIDriver and the namespaces, so they run one after another; the shards are balanced by each test's time in
# hack/integration-durations.txt (longest first, each to the shard with the least time so far). A
# shard that fails prints its failed tests' process logs, then its whole output; one that passes prints each test's time, slowest first
# (to refresh that file with), and where each slow test's time went (hack/shard-report.awk). The run fails if any shard fails or any test skips (a skipped test
# proves nothing). The test binary is built once and run by every shard: six `go test` runs would each
# link it, side by side, on a 2-core machine; so is the operator binary the tests run (the first shard
# to need it builds it, TEST_OPERATOR_BINARY). INTEGRATION_FLAGS are build flags for the test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARDS=${INTEGRATION_SHARDS:-6}
GO=${GO:-go}
PKG=./test/integration/

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bin=$out/integration.test
# shellcheck disable=SC2086
# -s -w: no DWARF to write (a third of the link); stack traces keep their functions, files and lines.
$GO test -c -o "$bin" -ldflags='-s -w' ${INTEGRATION_FLAGS:-} "$PKG"
# A test binary runs in its package's directory, as `go test` runs it.
mapfile -t tests < <(cd "$PKG" && "$bin" -test.list '.*' | grep '^Test')
[ "${#tests[@]}" -gt 0 ] || { echo "no integration tests found" >&2; exit 1; }
# "shard test" lines: longest-processing-time-first over the recorded times.
printf '%s\n' "${tests[@]}" | awk -v shards="$SHARDS" '
  NR == FNR { if ($0 !~ /^#/) secs[$2] = $1; next }
  { t[$1] = ($1 in secs) ? secs[$1] : 30; order[++n] = $1 }
  END {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (t[order[j]] > t[order[i]]) { x = order[i]; order[i] = order[j]; order[j] = x }
    for (i = 1; i <= n; i++) { best = 0; for (s = 1; s < shards; s++) if (load[s] < load[best]) best = s; load[best] += t[order[i]]; print best, order[i] }
  }' hack/integration-durations.txt - > "$out/plan"
# stamp BEGAN: each line of stdin prefixed with the seconds since the epoch second BEGAN, as it
# arrives. Perl, not a loop of bash's read: that reads a pipe a byte at a time (about 250 µs of CPU a
# line, some 100 CPU seconds of a warm run's shards).
stamp() {
  perl -ne 'BEGIN { $| = 1; $began = shift } printf "%5d %s", time - $began, $_' "$1"
}
pids=()
for ((s = 0; s < SHARDS; s++)); do
  mapfile -t names < <(awk -v s="$s" '$1 == s { print $2 }' "$out/plan")
  [ "${#names[@]}" -gt 0 ] || continue
  regex="^($(IFS='|'; echo "${names[*]}"))\$"
  echo "== integration shard $((s + 1))/$SHARDS: ${#names[@]} tests"
  # TEST_SHARD: each shard hands out ports from a part of its own (test/framework/ports.go), so a
  # server a test stops for a while keeps its port free for its return.
  # The shard's own wall time goes to shard-N.secs: a plan far from even shows in them.
  # `|| rc=$?`: under set -e a failing test binary would end the subshell before it wrote its time.
  # TEST_ARTIFACTS_DIR: a failed test's process logs go there (test/framework/failurelogs.go), printed
  # below before the shard's output, so each failed test's errors stay next to its "--- FAIL" line.
  # Each line of its output is prefixed with the seconds since the shard began (stamp), which the
  # report of a passing shard reads to say where a slow test's time went.
  (began=$EPOCHSECONDS; rc=0; cd "$PKG" && TEST_SHARD="$s/$SHARDS" TEST_ARTIFACTS_DIR="$out/artifacts-$s" TEST_OPERATOR_BINARY="$out/manila-csi-driver-operator" "$bin" -test.v -test.count=1 -test.timeout=40m -test.run "$regex" 2>&1 | stamp "$began" || rc=$?
   echo $(( EPOCHSECONDS - began )) > "$out/shard-$s.secs"; exit $rc) > "$out/shard-$s.log" 2>&1 &
  pids+=("$!:$s")
done
rc=0
for entry in "${pids[@]}"; do
  pid=${entry%%:*} s=${entry##*:}
  if wait "$pid"; then status=ok; else status=FAILED; rc=1; fi
  if grep -qE '^ *[0-9]+ +--- SKIP' "$out/shard-$s.log"; then status="FAILED (a test skipped)"; rc=1; fi
  echo "== integration shard $((s + 1))/$SHARDS $status in $(cat "$out/shard-$s.secs" 2>/dev/null || echo '?') s"
  if [ "$status" = ok ]; then
    awk -v slow=120 -v quiet=30 -f hack/shard-report.awk "$out/shard-$s.log"
    tail -1 "$out/shard-$s.log"
  else
    # The processes' logs first (the last 200 lines of each), then the shard's output.
    # (A failed shard may have none: a test that failed before it started a process.)
    if [ -d "$out/artifacts-$s" ]; then
      find "$out/artifacts-$s" -name '*.log' | sort | while read -r f; do
        echo "== ${f#"$out/"} (last 200 lines)"; tail -200 "$f"
      done
    fi
    echo "== integration shard $((s + 1))/$SHARDS output"
    cat "$out/shard-$s.log"
  fi
done
exit $rc
