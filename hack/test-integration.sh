#!/usr/bin/env bash
# Runs the integration tests (test/integration) in INTEGRATION_SHARDS processes side by side, each
# against its own test world on its own ports. Within one world the tests share the ClusterCSIDriver
# and the namespaces, so they run one after another; the shards split the tests round-robin in
# source order. Each shard's output is printed when it ends; the run fails if any shard fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARDS=${INTEGRATION_SHARDS:-2}
GO=${GO:-go}
PKG=./test/integration/

mapfile -t tests < <($GO test -list '.*' "$PKG" | grep '^Test')
[ "${#tests[@]}" -gt 0 ] || { echo "no integration tests found" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pids=()
for ((s = 0; s < SHARDS; s++)); do
  names=()
  for ((i = s; i < ${#tests[@]}; i += SHARDS)); do names+=("${tests[i]}"); done
  [ "${#names[@]}" -gt 0 ] || continue
  regex="^($(IFS='|'; echo "${names[*]}"))\$"
  echo "== integration shard $((s + 1))/$SHARDS: ${#names[@]} tests"
  $GO test -count=1 -timeout 40m ${INTEGRATION_FLAGS:-} -run "$regex" "$PKG" > "$out/shard-$s.log" 2>&1 &
  pids+=("$!:$s")
done
rc=0
for entry in "${pids[@]}"; do
  pid=${entry%%:*} s=${entry##*:}
  if wait "$pid"; then status=ok; else status=FAILED; rc=1; fi
  echo "== integration shard $((s + 1))/$SHARDS $status"
  cat "$out/shard-$s.log"
done
exit $rc
