#!/usr/bin/env bash
# readonly-root.sh DIR CMD [ARGS...]
# Runs CMD as a container with readOnlyRootFilesystem runs: in a private mount namespace where the
# root file system is read-only and DIR, a fresh tmpfs (the Pod's emptyDir), is the only writable
# place. The command replaces this shell, so signals sent to the PID reach it.
set -euo pipefail
dir=$1
shift
exec unshare --mount --propagation private bash -c '
set -euo pipefail
mount -o remount,bind,ro /
mount -o remount,bind,ro /dev/shm 2>/dev/null || true
mount -t tmpfs -o size=16m,mode=1777 tmpfs "$1"
shift
exec "$@"' readonly-root "$dir" "$@"
