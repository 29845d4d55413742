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
# The overlay's upper and work directories live on a tmpfs over /mnt that only this namespace sees:
# nothing is left on the host, and no caller's path (which may hold a comma, the overlay's option
# separator) reaches the mount options.
exec unshare --mount --propagation private bash -c '
set -euo pipefail
mount -t tmpfs -o size=1m,mode=0700 tmpfs /mnt
mkdir -p /mnt/upper /mnt/work
mount -t overlay overlay -o lowerdir=/etc,upperdir=/mnt/upper,workdir=/mnt/work /etc
while [ "$1" != "--" ]; do
  dir=${1%%=*} path=${1#*=}
  case "$path" in /etc/*) ;; *) echo "at-paths: $path is not under /etc" >&2; exit 2 ;; esac
  mkdir -p "$path"
  mount --bind "$dir" "$path"
  shift
done
shift
exec "$@"' at-paths "${binds[@]}" -- "$@"
