#!/usr/bin/env bash
# ceph.sh — a real one-node Ceph (Debian 12's Pacific, 16.2.15) on loopback, for the CephFS tests:
# one mon, one mgr (its `volumes` module is what Manila's CephFS driver calls), one OSD on memstore
# (in memory, as Ceph's own src/vstart.sh runs OSDs for tests), one MDS, one CephFS file system, and
# the cephx user Manila's driver connects as.
#
# Usage:
#   ceph.sh install            # apt install (idempotent)
#   ceph.sh start DIR          # configure and start a new cluster in DIR (DIR must be empty or absent)
#   ceph.sh stop DIR           # stop every daemon by the PID files in DIR/run
#   ceph.sh stop-mds DIR       # fault tests: stop the MDS only
#   ceph.sh start-mds DIR      # start it again; returns once the file system is active
#   ceph.sh status DIR
#   ceph.sh ceph DIR ARGS...   # the ceph CLI as client.admin of this cluster
#
# `start` writes DIR/ceph.conf (the mon address, cephx everywhere, DIR's keyrings), DIR/keyring
# (mon. and client.admin), DIR/client.MANILA_ID.keyring and DIR/cluster.env (CEPH_CONF, CEPH_FSID,
# CEPH_MON, CEPH_FS, CEPH_MANILA_ID). The mon speaks msgr v1 only on 127.0.0.1:CEPH_MON_PORT, as
# Manila's driver names monitors by their v1 address in export locations. Other daemons take ports
# from Ceph's own range (6800-7300), each from what is free, so clusters of parallel test shards
# coexist when each has its own CEPH_MON_PORT.
#
# Environment knobs (defaults in brackets):
#   CEPH_MON_PORT [16789]  CEPH_FS [cephfs]  CEPH_MANILA_ID [manila]
#   CEPH_OSD_BYTES [8589934592]  the OSD's nominal size. Manila's scheduler counts every share's size against
#                  the free space the driver reports in whole GB, so it must hold the tests' shares;
#                  memstore takes memory only for what is written.
set -euo pipefail

CEPH_MON_PORT=${CEPH_MON_PORT:-16789}
CEPH_FS=${CEPH_FS:-cephfs}
CEPH_MANILA_ID=${CEPH_MANILA_ID:-manila}
CEPH_OSD_BYTES=${CEPH_OSD_BYTES:-8589934592}
PKGS=(ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse ceph-common python3-rados python3-ceph-argparse)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

trap '' PIPE
log() { printf '[ceph %(%H:%M:%S)T] %s\n' -1 "$*" >&2 2>/dev/null || true; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
cmd_install() { install_packages "${PKGS[@]}"; }

# admin DIR ARGS...: the ceph CLI as client.admin, with a deadline (a cluster that lost its mon
# would otherwise make every call hang).
admin() { local D=$1; shift; timeout 60 ceph --conf "$D/ceph.conf" --name client.admin --connect-timeout 30 "$@"; }

write_conf() {
  local D=$1 fsid=$2
  cat > "$D/ceph.conf" <<EOF
[global]
fsid = $fsid
mon host = v1:127.0.0.1:$CEPH_MON_PORT
ms bind msgr2 = false
public addr = 127.0.0.1
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
run dir = $D/run
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
keyring = $D/keyring
[mon]
mon data = $D/mon/\$id
mon cluster log file = $D/log/cluster.log
# A test machine's disk may be fuller than a mon likes (it stops below 5% free by default).
mon data avail warn = 2
mon data avail crit = 1
[mgr]
mgr data = $D/mgr/\$id
keyring = $D/mgr/\$id/keyring
[osd]
osd data = $D/osd/\$id
keyring = $D/osd/\$id/keyring
osd objectstore = memstore
memstore device bytes = $CEPH_OSD_BYTES
osd max object name len = 460
osd max object namespace len = 64
[mds]
mds data = $D/mds/\$id
keyring = $D/mds/\$id/keyring
[client.$CEPH_MANILA_ID]
keyring = $D/client.$CEPH_MANILA_ID.keyring
EOF
}

# daemon DIR NAME ARGS...: starts a Ceph daemon in the foreground of its own session, its pid in
# DIR/run/NAME.pid. Not daemonized: a forked Ceph daemon has no stderr, and the mgr's volumes module
# writes to it (`fs subvolume authorize` then fails with EBADF).
daemon() {
  local D=$1 name=$2; shift 2
  setsid "$@" --conf "$D/ceph.conf" -f </dev/null >>"$D/log/$name.out" 2>&1 &
  echo $! > "$D/run/$name.pid"
  sleep 0.2
  kill -0 "$(cat "$D/run/$name.pid")" 2>/dev/null || die "$name did not start: $(tail -5 "$D/log/$name.out")"
}

wait_for() { # DIR WHAT DEADLINE_S COMMAND...
  local D=$1 what=$2 deadline=$3 i; shift 3
  for ((i = 0; i < deadline * 2; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  die "$what not reached in ${deadline}s"
}

fs_active() { admin "$1" fs status "$CEPH_FS" --format json | grep -q '"state": *"active"'; }

cmd_start() {
  local D=${1:?usage: start DIR} t0 fsid key uuid; t0=$(now)
  mkdir -p "$D"; D=$(cd "$D" && pwd)
  [ -z "$(ls -A "$D")" ] || die "$D is not empty"
  mkdir -p "$D/run" "$D/log" "$D/mon/a" "$D/mgr/x" "$D/osd/0" "$D/mds/a"
  fsid=$(cat /proc/sys/kernel/random/uuid)
  write_conf "$D" "$fsid"
  ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
    --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
  monmaptool --create --fsid "$fsid" --addv a "[v1:127.0.0.1:$CEPH_MON_PORT]" "$D/monmap" >/dev/null
  ceph-mon --conf "$D/ceph.conf" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" >>"$D/log/mon.a.out" 2>&1 ||
    die "mon mkfs: $(tail -5 "$D/log/mon.a.out")"
  daemon "$D" mon.a ceph-mon -i a
  wait_for "$D" "the mon answering" 60 admin "$D" mon stat

  admin "$D" auth get-or-create mgr.x mon 'allow profile mgr' mds 'allow *' osd 'allow *' -o "$D/mgr/x/keyring" >/dev/null
  daemon "$D" mgr.x ceph-mgr -i x

  # The OSD: its key first, then its id, then its (in-memory) store.
  key=$(ceph-authtool --gen-print-key)
  printf '[osd.0]\n\tkey = %s\n' "$key" > "$D/osd/0/keyring"
  uuid=$(cat /proc/sys/kernel/random/uuid)
  printf '{"cephx_secret": "%s"}' "$key" | admin "$D" osd new "$uuid" -i - >/dev/null
  ceph-osd --conf "$D/ceph.conf" -i 0 --mkfs --osd-uuid "$uuid" >>"$D/log/osd.0.out" 2>&1 || die "osd mkfs: $(tail -5 "$D/log/osd.0.out")"
  daemon "$D" osd.0 ceph-osd -i 0
  wait_for "$D" "the OSD up" 120 sh -c "timeout 30 ceph --conf '$D/ceph.conf' osd stat --format json | grep -q '\"num_up_osds\":1'"

  admin "$D" auth get-or-create mds.a mon 'allow profile mds' osd 'allow rwx' mds 'allow *' mgr 'allow profile mds' \
    -o "$D/mds/a/keyring" >/dev/null
  daemon "$D" mds.a ceph-mds -i a
  admin "$D" osd pool create "${CEPH_FS}_metadata" 8 >/dev/null
  admin "$D" osd pool create "${CEPH_FS}_data" 8 >/dev/null
  admin "$D" fs new "$CEPH_FS" "${CEPH_FS}_metadata" "${CEPH_FS}_data" >/dev/null
  wait_for "$D" "file system $CEPH_FS active" 120 fs_active "$D"
  # Manila's CephFS driver: the rights its documentation gives (it acts through the mgr).
  admin "$D" auth get-or-create "client.$CEPH_MANILA_ID" mon 'allow r' mgr 'allow rw' \
    -o "$D/client.$CEPH_MANILA_ID.keyring" >/dev/null
  chmod 0644 "$D/client.$CEPH_MANILA_ID.keyring"
  wait_for "$D" "the mgr volumes module" 120 admin "$D" fs subvolumegroup ls "$CEPH_FS"
  cat > "$D/cluster.env" <<EOF
CEPH_CONF=$D/ceph.conf
CEPH_FSID=$fsid
CEPH_MON=127.0.0.1:$CEPH_MON_PORT
CEPH_FS=$CEPH_FS
CEPH_MANILA_ID=$CEPH_MANILA_ID
EOF
  log "ceph $fsid up on 127.0.0.1:$CEPH_MON_PORT, file system $CEPH_FS active, in $(elapsed "$t0") s"
}

stop_one() { # DIR NAME
  local pidf="$1/run/$2.pid" pid i
  [ -f "$pidf" ] || return 0
  pid=$(cat "$pidf")
  if kill "$pid" 2>/dev/null; then
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidf"
}

cmd_stop() {
  local D=${1:?usage: stop DIR} n
  for n in mds.a osd.0 mgr.x mon.a; do stop_one "$D" "$n"; done
  log "stopped"
}

cmd_stop_mds() { stop_one "${1:?usage: stop-mds DIR}" mds.a; log "mds.a stopped"; }

cmd_start_mds() {
  local D=${1:?usage: start-mds DIR}
  daemon "$D" mds.a ceph-mds -i a
  wait_for "$D" "file system $CEPH_FS active" 180 fs_active "$D"
  log "mds.a started, $CEPH_FS active"
}

cmd_status() {
  local D=${1:?usage: status DIR}
  admin "$D" -s
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  stop-mds) cmd_stop_mds "${2:-}" ;;
  start-mds) cmd_start_mds "${2:-}" ;;
  status) cmd_status "${2:-}" ;;
  ceph) D=${2:?usage: ceph DIR ARGS...}; shift 2; admin "$D" "$@" ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
