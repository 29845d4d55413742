#!/usr/bin/env bash
# soak-swap.sh - runs the image swap tests (TestRealCSOImageSwap*: one per cloud shape; TestRealCSOHostedImageSwap)
# N times in one test world and prints, for each run, each shape's result and what the watch recorders
# saw (every version of CSO's Manila conditions and of the operand Deployment, the writes of each
# operator by turn), then a count of failed runs per shape. For finding a flake: a run's full output
# is kept in _output/soak/run-K.log.
# Environment: N (10), SOAK_RUN (the -test.run regex), and the TEST_* variables make test sets.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10}
RUN=${SOAK_RUN:-'^TestRealCSO(Hosted)?ImageSwap'}
out=$PWD/_output/soak
mkdir -p "$out"
bin=$out/integration.test
go test -c -o "$bin" -ldflags='-s -w' ./test/integration/
for ((k = 1; k <= N; k++)); do
  log=$out/run-$k.log
  rc=0
  (cd test/integration && "$bin" -test.v -test.count=1 -test.timeout=60m -test.run "$RUN") >"$log" 2>&1 || rc=$?
  echo "== run $k/$N: $([ "$rc" -eq 0 ] && echo passed || echo FAILED) (log: ${log#"$PWD"/})"
  grep -E '^ *--- (PASS|FAIL)' "$log" | sed 's/^ */   /'
  # What the recorders printed: the lines after each "every version" or "by turn" heading.
  awk '/every version:|by turn:/ {p = 1; print "   " $0; next} p && /^        +([0-9][0-9]:[0-9][0-9]:|this operator:|the predecessor:)/ {print "   " $0; next} {p = 0}' "$log"
done
echo "== failed runs per test:"
grep -hE '^ *--- FAIL' "$out"/run-*.log | sed -E 's/ \([0-9.]+s\)//' | sort | uniq -c || echo "   none"
