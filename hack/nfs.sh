#!/usr/bin/env bash
# nfs.sh — the NFS half of the test world (../shared/REFERENCE.md section 17): a real NFS-Ganesha with
# FSAL_CEPH exporting a real Ceph's subvolumes, managed by Manila's own CephFS driver through its NFS
# helper over D-Bus; and the client side: the real NFS CSI node plugin (csi-driver-nfs) and fuse-nfs,
# the userspace NFSv3 client its `mount -t nfs` reaches through hack/nfs/mount.nfs.
#
# Usage:
#   nfs.sh install              # apt install (idempotent; no daemon is started by a package's scripts)
#   nfs.sh build OUT_DIR        # OUT_DIR/fuse-nfs and OUT_DIR/nfsplugin from their checked archives;
#                               # idempotent: kept while OUT_DIR/.nfs.version names the same archives
#   nfs.sh start DIR CEPH_DIR   # a Ganesha for the Ceph in CEPH_DIR (hack/ceph.sh), in its own mount
#                               # namespace with its own D-Bus system bus and rpcbind (DIR/nfs.env says
#                               # how to reach them)
#   nfs.sh dbus DIR ARGS...     # dbus-send on that instance's system bus
#   nfs.sh enter DIR CMD...     # CMD in that instance's mount namespace (sees its /run/dbus)
#   nfs.sh stop DIR
#
# Facts:
# - Ganesha serves NFSv3 and v4 on 127.0.0.1:NFS_PORT (MOUNT on 127.0.0.1:MNT_PORT), NLM and RQUOTA off,
#   Graceless. Its exports are the files Manila's helper writes under DIR/export.d, included through
#   DIR/export.d/INDEX.conf, and added or removed at run time over D-Bus (org.ganesha.nfsd.exportmgr).
# - The namespace: `unshare -m` with DIR/run bound over /run (a `dbus-daemon --system` there reads
#   Debian's /etc/dbus-1/system.d/nfs-ganesha-dbus.conf) and DIR/etc-ceph over /etc/ceph (Ganesha reads
#   /etc/ceph/ceph.conf for exports added over D-Bus, whatever its own config says); rpcbind runs in an
#   empty network namespace (`unshare -n`): nothing listens on port 111, Ganesha registers through
#   /run/rpcbind.sock, a Unix socket, which a network namespace does not hide.
# - The mount namespace is held by a sleeping process (DIR/ns.pid); `enter` and `dbus` join it with
#   nsenter. Two instances share nothing: each has its own DIR/run.
# Environment: NFS_PORT [12049], MNT_PORT [12050], UPSTREAM_DIR (as hack/ceph-csi.sh).
set -euo pipefail

NFS_PORT=${NFS_PORT:-12049}
MNT_PORT=${MNT_PORT:-12050}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${UPSTREAM_DIR:-}" ]; then
  for UPSTREAM_DIR in "$ROOT/../shared/upstream" /work/shared/upstream; do [ -d "$UPSTREAM_DIR" ] && break; done
fi
FUSE_NFS_ARCHIVE=${FUSE_NFS_ARCHIVE:-$UPSTREAM_DIR/fuse-nfs-331e6fe5ea39.tar.xz}
NFS_CSI_ARCHIVE=${NFS_CSI_ARCHIVE:-$UPSTREAM_DIR/csi-driver-nfs-f09798c0f1e7.tar.xz}
# nfs-ganesha-ceph: FSAL_CEPH; sqlite3: Manila's Ganesha helper keeps its export ids with the CLI;
# fuse: fusermount for fuse-nfs's unmount.
PKGS=(nfs-ganesha nfs-ganesha-ceph rpcbind dbus sqlite3 fuse libnfs-dev libfuse-dev gcc libc6-dev pkg-config xz-utils)
export PATH=/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH

trap '' PIPE
log() { printf '[nfs %(%H:%M:%S)T] %s\n' -1 "$*" >&2 2>/dev/null || true; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# shellcheck source=lib.sh
. "$ROOT/hack/lib.sh"
cmd_install() { install_packages "${PKGS[@]}"; }


cmd_build() {
  local out=${1:?usage: nfs.sh build OUT_DIR} stamp src t
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  stamp="fuse-nfs $(checked_archive "$FUSE_NFS_ARCHIVE") nfsplugin $(checked_archive "$NFS_CSI_ARCHIVE") $(go env GOVERSION)"
  if [ -x "$out/fuse-nfs" ] && [ -x "$out/nfsplugin" ] && [ "$(cat "$out/.nfs.version" 2>/dev/null)" = "$stamp" ]; then
    log "fuse-nfs and nfsplugin up to date in $out"; return 0
  fi
  local work=$out/../../nfs-src
  mkdir -p "$work"; work=$(cd "$work" && pwd)

  # fuse-nfs: one C file; its autotools would only write these two lines of config.h.
  t=$(now)
  src=$(unpack "$FUSE_NFS_ARCHIVE" "$work")
  printf '#define HAVE_FUSE_H 1\n#define HAVE_ST_ATIM 1\n' > "$src/config.h"
  # shellcheck disable=SC2046
  gcc -O2 -DHAVE_CONFIG_H -I"$src/fuse" -o "$out/fuse-nfs" "$src/fuse/fuse-nfs.c" $(pkg-config --cflags --libs fuse libnfs)
  log "fuse-nfs: built in $(since "$t")"

  # nfsplugin: pure Go (the mounter execs mount(8)); the flags of its Makefile's static build.
  t=$(now)
  src=$(unpack "$NFS_CSI_ARCHIVE" "$work")
  local commit
  commit=$(basename "$NFS_CSI_ARCHIVE" .tar.xz); commit=${commit##*-}
  (cd "$src" && GOFLAGS="-mod=vendor -trimpath -buildvcs=false -gcflags=all=-dwarf=false" GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 \
    go build -ldflags "-s -w -X github.com/kubernetes-csi/csi-driver-nfs/pkg/nfs.driverVersion=v4.13.4 -X github.com/kubernetes-csi/csi-driver-nfs/pkg/nfs.gitCommit=$commit" \
    -o "$out/nfsplugin" ./cmd/nfsplugin)
  log "nfsplugin: built in $(since "$t")"
  echo "$stamp" > "$out/.nfs.version"
}

nspid() { cat "$1/ns.pid" 2>/dev/null; }
alive() { local p; p=$(nspid "$1") && [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

# inside DIR CMD...: CMD in the instance's mount namespace.
inside() { local d=$1; shift; nsenter -t "$(nspid "$d")" -m -- "$@"; }

write_ganesha_conf() {
  local d=$1
  cat > "$d/ganesha.conf" <<EOF
NFS_CORE_PARAM {
    Bind_addr = 127.0.0.1;
    NFS_Port = $NFS_PORT;
    MNT_Port = $MNT_PORT;
    Enable_NLM = false;
    Enable_RQUOTA = false;
    Protocols = 3, 4;
}
NFSV4 {
    Graceless = true;
    RecoveryRoot = $d/recovery;
}
NFS_KRB5 { Active_krb5 = false; }
EXPORT_DEFAULTS { Transports = TCP; }
LOG { Default_Log_Level = EVENT; }
%include $d/export.d/INDEX.conf
EOF
}

cmd_start() {
  local d=${1:?usage: nfs.sh start DIR CEPH_DIR} ceph=${2:?usage: nfs.sh start DIR CEPH_DIR} t
  t=$(now)
  mkdir -p "$d"; d=$(cd "$d" && pwd); ceph=$(cd "$ceph" && pwd)
  alive "$d" && die "an instance already runs in $d"
  [ -r "$ceph/ceph.conf" ] || die "no $ceph/ceph.conf (hack/ceph.sh start first)"
  rm -rf "$d/run" "$d/etc-ceph" "$d/recovery"
  mkdir -p "$d/run/dbus" "$d/etc-ceph" "$d/recovery" "$d/export.d" "$d/log"
  : > "$d/export.d/INDEX.conf"
  cp "$ceph/ceph.conf" "$d/etc-ceph/ceph.conf"
  cp "$ceph"/*.keyring "$d/etc-ceph/" 2>/dev/null || true
  write_ganesha_conf "$d"
  # The namespace's holder: binds /run and /etc/ceph, then sleeps until stop kills it. setsid: the
  # caller's session (a test's process group) ending does not take it along.
  setsid unshare -m --propagation private bash -c '
    mount --bind "$1/run" /run && mount --bind "$1/etc-ceph" /etc/ceph && echo $$ > "$1/ns.pid" && exec sleep infinity' _ "$d" \
    </dev/null >"$d/log/ns.log" 2>&1 &
  local i
  for i in $(seq 100); do alive "$d" && inside "$d" test -d /run/dbus && break; sleep 0.05; done
  alive "$d" || die "the namespace did not start: $(cat "$d/log/ns.log")"
  inside "$d" dbus-daemon --system --fork --nopidfile --address=unix:path=/run/dbus/system_bus_socket \
    >"$d/log/dbus.log" 2>&1 || die "dbus-daemon: $(cat "$d/log/dbus.log")"
  # rpcbind: -f foreground, -w warm start off its state files in /run; -n: an empty network namespace.
  inside "$d" setsid unshare -n rpcbind -f -w </dev/null >"$d/log/rpcbind.log" 2>&1 &
  for i in $(seq 100); do [ -S "$d/run/rpcbind.sock" ] && break; sleep 0.05; done
  [ -S "$d/run/rpcbind.sock" ] || die "rpcbind did not start: $(cat "$d/log/rpcbind.log")"
  inside "$d" setsid ganesha.nfsd -F -f "$d/ganesha.conf" -L "$d/log/ganesha.log" -p "$d/run/ganesha.pid" -N NIV_EVENT \
    </dev/null >"$d/log/ganesha.out" 2>&1 &
  for i in $(seq 200); do
    if cmd_dbus "$d" --print-reply --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.ShowExports >/dev/null 2>&1; then
      break
    fi
    sleep 0.05
  done
  cmd_dbus "$d" --print-reply --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.ShowExports >/dev/null 2>&1 ||
    die "ganesha did not answer on D-Bus: $(tail -20 "$d/log/ganesha.log" 2>/dev/null)"
  cat > "$d/nfs.env" <<EOF
NFS_DIR=$d
NFS_PORT=$NFS_PORT
MNT_PORT=$MNT_PORT
NFS_NS_PID=$(nspid "$d")
EOF
  log "ganesha up on 127.0.0.1:$NFS_PORT (mount $MNT_PORT) in $(since "$t")"
}

cmd_dbus() { local d=${1:?usage: nfs.sh dbus DIR ARGS...}; shift; inside "$d" dbus-send --system "$@"; }
cmd_enter() { local d=${1:?usage: nfs.sh enter DIR CMD...}; shift; inside "$d" "$@"; }

cmd_stop() {
  local d=${1:?usage: nfs.sh stop DIR} p
  [ -d "$d" ] || return 0
  if alive "$d"; then
    # Ganesha, rpcbind and dbus-daemon run in the namespace; end them by what holds it.
    for p in $(pgrep -f "ganesha.nfsd -F -f $d/ganesha.conf" || true); do kill "$p" 2>/dev/null || true; done
    for p in $(pgrep -x rpcbind || true) $(pgrep -x dbus-daemon || true); do
      [ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$(readlink "/proc/$(nspid "$d")/ns/mnt")" ] && kill "$p" 2>/dev/null || true
    done
    kill "$(nspid "$d")" 2>/dev/null || true
  fi
  rm -f "$d/ns.pid"
}

case "${1:-}" in
  install) cmd_install ;;
  build) shift; cmd_build "$@" ;;
  start) shift; cmd_start "$@" ;;
  dbus) shift; cmd_dbus "$@" ;;
  enter) shift; cmd_enter "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  *) sed -n '2,29p' "$0"; exit 2 ;;
esac
