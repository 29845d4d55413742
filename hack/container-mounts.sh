#!/usr/bin/env bash
# container-mounts.sh SCRATCH [ro|rw SRC DST]... -- CMD [ARGS...]
# Runs CMD seeing its volumes where its container sees them: in a private mount namespace, each
# SRC (a pod volume's directory on this machine, or a file of it for a subPath mount) is bind-mounted at DST (the container's
# mountPath), read-only with ro. So a path the process learns at run time, not from its arguments
# (e.g. the CA path of a driver secret received over CSI), names the volume's file as in the
# container.
# To make mount points without touching the host's files, DST's top-level directory (e.g. /etc) is
# first covered by an overlay: the host's directory as the lower layer, a tmpfs on SCRATCH (an empty
# directory of the caller's) as the upper; mounts below that directory (e.g. /etc/resolv.conf in a
# container) are carried over. Outside the namespace nothing changes. A top-level directory that
# holds SCRATCH or a SRC, or that does not exist, is refused.
# CONTAINER_MOUNTS_SHARED (space-separated directories of this machine) stands for a volume mounted
# with mountPropagation Bidirectional: each is made a shared mount here (a bind onto itself when it is
# not a mount point yet; the caller unmounts it when done), stays shared with this machine inside the
# namespace, and so what the command mounts below it (a CSI node plugin's staging and publish
# mounts) is seen outside, as a kubelet sees it. Every other mount inside is made private.
# Needs root (unshare). The command replaces this shell, so signals sent to the PID reach it.
set -euo pipefail
shared=${CONTAINER_MOUNTS_SHARED:-}
propagation=private
for dir in $shared; do
  mountpoint -q "$dir" || mount --bind "$dir" "$dir"
  mount --make-shared "$dir"
  propagation=unchanged
done
exec unshare --mount --propagation "$propagation" bash -c '
set -euo pipefail
scratch=$1
shared=$2
shift 2
if [ -n "$shared" ]; then
  # Deepest first; a mount hidden under another cannot be changed and needs no change.
  for mp in $(awk "{print \$5}" /proc/self/mountinfo | sort -r); do
    keep=0
    for dir in $shared; do
      case $mp/ in "$dir"/*) keep=1 ;; esac
    done
    [ "$keep" = 1 ] || mount --make-private "$mp" 2>/dev/null || true
  done
fi
mount -t tmpfs -o size=16m,mode=0700 tmpfs "$scratch"
declare -A overlaid=() bound=()
declare -a binds=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do
  mode=$1 src=$2 dst=$3
  shift 3
  rest=${dst#/}
  top=/${rest%%/*}
  case $dst in
    /*/*) ;;
    /?*)
      # A top-level mountPath (the /csi of ceph-csi): bound onto the directory of that name here, which
      # the caller made (empty); nothing to overlay, and mounts below it go into the volume itself.
      # Private: a bind of a directory below a shared one would otherwise carry them back out.
      [ -d "$dst" ] && [ -d "$src" ] || { echo "container-mounts: $dst: no such directory" >&2; exit 2; }
      mount --bind "$src" "$dst"
      mount --make-private "$dst"
      bound[$dst]=1
      if [ "$mode" = ro ]; then mount -o remount,bind,ro "$dst"; fi
      continue ;;
    *) echo "container-mounts: $dst: not a path" >&2; exit 2 ;;
  esac
  for inside in "$scratch" "$src"; do
    case $inside/ in
      "$top"/*) echo "container-mounts: $top holds $inside; not overlaid" >&2; exit 2 ;;
    esac
  done
  if [ -z "${overlaid[$top]:-}" ] && [ -z "${bound[$top]:-}" ]; then
    [ -d "$top" ] || { echo "container-mounts: $top: no such directory" >&2; exit 2; }
    layer=$scratch/${#overlaid[@]}
    mkdir -p "$layer/lower" "$layer/upper" "$layer/work"
    # The mounts below top, seen through the recursive bind once the overlay hides them.
    subs=$(awk -v top="$top/" "substr(\$5, 1, length(top)) == top {print \$5}" /proc/self/mountinfo)
    mount --rbind "$top" "$layer/lower"
    mount -t overlay overlay -o "lowerdir=$layer/lower,upperdir=$layer/upper,workdir=$layer/work" "$top"
    for sub in $subs; do
      mount --bind "$layer/lower${sub#"$top"}" "$sub"
    done
    overlaid[$top]=1
  fi
  if [ -d "$src" ]; then
    mkdir -p "$dst"
  else
    mkdir -p "$(dirname "$dst")"
    [ -e "$dst" ] || : >"$dst"
  fi
  mount --bind "$src" "$dst"
  if [ "$mode" = ro ]; then
    mount -o remount,bind,ro "$dst"
  fi
done
[ "${1:-}" = -- ] || { echo "container-mounts: no -- before the command" >&2; exit 2; }
shift
exec "$@"' container-mounts "$1" "$shared" "${@:2}"
