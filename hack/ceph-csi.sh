#!/usr/bin/env bash
# ceph-csi.sh - build the REAL ceph-csi plugin binary (`cephcsi`, ./cmd of github.com/ceph/ceph-csi) from
# the source archive in UPSTREAM_DIR (as hack/cso.sh: default the first existing of <repo>/../shared/upstream
# and /work/shared/upstream; the Go module proxy here does not serve ceph-csi):
#   cephcsi   ceph/ceph-csi 52fcb7b00c3d (2024-10-22, devel after v3.12)   CEPH_CSI_ARCHIVE
#             vendor/ (go-ceph v0.30.0, cgo) against Debian 12's Ceph 16.2.15 (Pacific) libraries
#
# Usage:
#   ceph-csi.sh build OUT_DIR   # idempotent: OUT_DIR/cephcsi is kept when OUT_DIR/.cephcsi.version
#                               # names the same archive (sha256) and build tags
#   ceph-csi.sh version         # the stamp a build would write
#
# Facts:
# - The archive is checked against SHA256SUMS next to it before every use; it is unpacked under
#   SRC_DIR (default OUT_DIR/../../ceph-csi-src, i.e. the git-ignored _output/ceph-csi-src).
# - cgo needs the headers and .so links of librados, libcephfs and librbd (./cmd links all three
#   drivers); ceph-fuse and ceph-common are what the CephFS node plugin runs. Missing Debian packages
#   are installed (root only).
# - Build tags: GO_TAGS [ceph_preview]. ceph-csi's Makefile uses "$(CEPH_VERSION) ceph_preview" with
#   CEPH_VERSION=squid; go-ceph v0.30.0 has no file gated on squid/reef/quincy, so "squid" selects
#   nothing and "ceph_preview" alone gives the same go-ceph file set. The tag `pacific` does NOT
#   compile: it drops go-ceph's cephfs/admin metadata.go and snapshot_metadata.go (pure-Go mgr
#   commands, `fs subvolume [snapshot] metadata set|rm`, Quincy+ on the mgr side) that ceph-csi's
#   internal/cephfs/core calls unconditionally. Without `pacific` every cgo call compiles and links
#   against the Pacific headers/libs; the ceph_preview rbd calls (rbd_clone4, rbd_group_snap_get_info)
#   go through dlsym and only fail at run time, if called.
# - ldflags as the Makefile's: util.GitCommit (the archive's commit) and util.DriverVersion
#   (CSI_IMAGE_VERSION from the archive's build.env, "canary").
# - A cold build (empty GOCACHE) takes about 3.5 min on 2 cores (mostly k8s.io and the AWS/Vault SDKs ceph-csi vendors).
# Tunables (env): UPSTREAM_DIR, CEPH_CSI_ARCHIVE (default UPSTREAM_DIR/ceph-csi-52fcb7b00c3d.tar.xz), GO_TAGS, SRC_DIR.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${UPSTREAM_DIR:-}" ]; then
  for UPSTREAM_DIR in "$ROOT/../shared/upstream" /work/shared/upstream; do [ -d "$UPSTREAM_DIR" ] && break; done
fi
CEPH_CSI_ARCHIVE=${CEPH_CSI_ARCHIVE:-$UPSTREAM_DIR/ceph-csi-52fcb7b00c3d.tar.xz}
GO_TAGS=${GO_TAGS:-ceph_preview}
PKGS=(ceph-common ceph-fuse librados-dev libcephfs-dev librbd-dev gcc libc6-dev xz-utils)

export GOFLAGS="-mod=vendor -trimpath -buildvcs=false -gcflags=all=-dwarf=false" GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOWORK=off CGO_ENABLED=1
export PATH=$PATH:/usr/local/go/bin

log() { printf '[ceph-csi %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }
# shellcheck source=lib.sh
. "$ROOT/hack/lib.sh"

NAME=$(basename "$CEPH_CSI_ARCHIVE" .tar.xz)   # ceph-csi-<commit>; the archive unpacks into NAME/
COMMIT=${NAME##*-}

want_stamp() { echo "$NAME.tar.xz sha256=$1 tags=$GO_TAGS"; }

install_pkgs() { install_packages "${PKGS[@]}" >&2; }

cmd_build() {
  local out=${1:?usage: build OUT_DIR} sum want src tree t ver ldf
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  src=${SRC_DIR:-$(dirname "$(dirname "$out")")/ceph-csi-src}
  sum=$(checked_archive "$CEPH_CSI_ARCHIVE"); want=$(want_stamp "$sum")
  if [ -x "$out/cephcsi" ] && [ "$(cat "$out/.cephcsi.version" 2>/dev/null)" = "$want" ]; then
    log "cephcsi: $NAME (tags $GO_TAGS) already built"; return 0
  fi
  install_pkgs
  command -v go >/dev/null || die "no go in PATH"
  t=$(now)

  # Unpack once per archive: .unpacked inside the tree records the sha256 it came from.
  tree=$src/$NAME
  if [ "$(cat "$tree/.unpacked" 2>/dev/null)" != "$sum" ]; then
    log "unpacking $NAME.tar.xz into $src"
    rm -rf "$tree" "$tree.tmp"; mkdir -p "$tree.tmp"
    tar -xJf "$CEPH_CSI_ARCHIVE" -C "$tree.tmp"
    [ -d "$tree.tmp/$NAME/vendor/github.com/ceph/go-ceph" ] || die "$NAME.tar.xz has no $NAME/vendor/github.com/ceph/go-ceph"
    mv "$tree.tmp/$NAME" "$tree"; rmdir "$tree.tmp"; echo "$sum" > "$tree/.unpacked"
  fi

  ver=$(. "$tree/build.env" && echo "${CSI_IMAGE_VERSION:-canary}")
  ldf="-s -w -X github.com/ceph/ceph-csi/internal/util.GitCommit=$COMMIT -X github.com/ceph/ceph-csi/internal/util.DriverVersion=$ver"
  log "cephcsi: building $NAME with -tags=$GO_TAGS (log: $out/cephcsi.build.log)"
  (cd "$tree" && go build -tags="$GO_TAGS" -ldflags "$ldf" -o "$out/cephcsi.new" ./cmd/) >"$out/cephcsi.build.log" 2>&1 ||
    { tail -30 "$out/cephcsi.build.log" >&2; rm -f "$out/cephcsi.new"; die "cephcsi did not build"; }
  mv "$out/cephcsi.new" "$out/cephcsi"; echo "$want" > "$out/.cephcsi.version"; rm -f "$out/cephcsi.build.log"
  log "cephcsi: built in $(since "$t") -> $out/cephcsi"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  version) want_stamp "$(checked_archive "$CEPH_CSI_ARCHIVE")" ;;
  *) sed -n '2,30p' "$0"; exit 2 ;;
esac
