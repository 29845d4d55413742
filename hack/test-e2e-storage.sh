#!/usr/bin/env bash
# Kubernetes' external storage suite, every spec but the disruptive ones, for the operator's two drivers
# (make test-e2e-storage): TestE2ECephFSMounted and TestE2ENFSMounted with TEST_E2E_STORAGE_ALL set,
# side by side, each in its own test world (TEST_SHARD: ports of their own; their real nodes have
# addresses of their own). Each test's output goes to _output/e2e-storage-TEST.log; each driver's table
# of what passed, skipped (with the reason) and failed is printed at the end. Fails if either test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
out=_output
mkdir -p "$out"
bin=$(mktemp -d)/integration.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
$GO test -c -o "$bin" -ldflags='-s -w' ./test/integration/
tests=(TestE2ECephFSMounted TestE2ENFSMounted)
pids=()
for i in "${!tests[@]}"; do
  t=${tests[$i]}
  (cd test/integration && TEST_E2E_STORAGE_ALL=1 TEST_SHARD="$i/${#tests[@]}" "$bin" -test.v -test.count=1 \
    -test.timeout=6h -test.run "^$t\$") >"$out/e2e-storage-$t.log" 2>&1 &
  pids+=("$!")
done
rc=0
for i in "${!tests[@]}"; do
  t=${tests[$i]}
  if wait "${pids[$i]}"; then status=ok; else status=FAILED; rc=1; fi
  sed -n '/the external storage suite for/,/ passed, .* skipped, .* failed$/p' "$out/e2e-storage-$t.log"
  echo "== $t $status ($out/e2e-storage-$t.log)"
  [ "$status" = ok ] || tail -30 "$out/e2e-storage-$t.log"
done
exit $rc
