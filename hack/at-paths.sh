#!/usr/bin/env bash
# at-paths.sh DIR=PATH [DIR=PATH ...] -- CMD [ARGS...]
# Runs CMD as a container sees its volumes: in a private mount namespace where each DIR is
# bind-mounted at PATH, an absolute path under /etc (made in an overlay of /etc that only this
# namespace sees; the host's /etc is not touched). For programs that read files at fixed paths, as
# OpenShift's own Manila operators read /etc/openstack/clouds.yaml. The command replaces this shell,
# so signals sent to the PID reach it.
set -euo pipefail
binds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do binds+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: $0 DIR=PATH... -- CMD [ARGS...]" >&2; exit 2; }
shift
state=$(mktemp -d)
exec unshare --mount --propagation private bash -c '
set -euo pipefail
state=$1; shift
mkdir -p "$state/upper" "$state/work"
mount -t overlay overlay -o lowerdir=/etc,upperdir="$state/upper",workdir="$state/work" /etc
while [ "$1" != "--" ]; do
  dir=${1%%=*} path=${1#*=}
  case "$path" in /etc/*) ;; *) echo "at-paths: $path is not under /etc" >&2; exit 2 ;; esac
  mkdir -p "$path"
  mount --bind "$dir" "$path"
  shift
done
shift
exec "$@"' at-paths "$state" "${binds[@]}" -- "$@"
