#!/usr/bin/env bash
# cso.sh - build what runs the Manila operator on a real OpenShift cluster, for the test world's
# cluster-storage-operator (test/framework/cso.go): from the Go module proxy where it serves the pinned
# commit, else from the source archives in UPSTREAM_DIR (no image registry, no GitHub downloads).
#   cluster-storage-operator             github.com/openshift/cluster-storage-operator   CSO_COMMIT          (main, 2026-08-04)
#   cluster-storage-operator-4.20        github.com/openshift/cluster-storage-operator   CSO_420_COMMIT      (release-4.20: the 4.19-4.22 shape)
#   cluster-storage-operator-4.17        github.com/openshift/cluster-storage-operator   CSO_417_COMMIT      (release-4.17)
#   csi-driver-manila-operator-4.17      github.com/openshift/csi-driver-manila-operator MANILA_417_COMMIT   (<= 4.17 predecessor)
#   openstack-manila-csi-driver-operator github.com/openshift/csi-operator               CSI_OPERATOR_COMMIT (4.18+ predecessor)
# and OUT_DIR/crds: the CRDs CSO needs that the world's `controlplane.sh crds` does not install
# (operator.openshift.io Storage, from the same openshift/api module version), and beside each CSO its
# manifests/ (OUT_DIR/NAME.manifests: what the cluster-version operator applies for that CSO, of
# which the world applies the CSI sidecars' ClusterRoles).
#
# Usage:
#   cso.sh build OUT_DIR [NAME...]  # the named binaries (default: all); idempotent: a binary whose stamp
#                                   # names its pinned module@commit is kept
#   cso.sh versions        # the pins, one per line
#
# Each binary: the module proxy is asked once for module@commit. Where it serves it, the module is
# copied out of the module cache and built in place with -mod=mod (`go install m@v` refuses modules
# whose go.mod has replace directives; the proxy's zips carry no vendor/). Where it refuses, the build
# uses UPSTREAM_DIR/<repo>-<commit12>.tar.xz (a `git archive` of that commit): checked against
# UPSTREAM_DIR/SHA256SUMS, unpacked once into SRC_DIR/<repo>-<commit12>, built with -mod=vendor when
# the archive has vendor/, else -mod=mod (its modules then come from the proxy). Each binary's stamp
# (OUT_DIR/.NAME.version) names module@commit and where it was built from (proxy or archive).
# A module the proxy refuses and no archive has, a checksum mismatch or a failed build stops the
# script non-zero, naming the binary and why.
# Tunables (env): UPSTREAM_DIR (the archives; default the first existing of <repo>/../shared/upstream
# and /work/shared/upstream), SRC_DIR (module copies and unpacked archives; default
# OUT_DIR/../../cso-src), the *_COMMIT pins above, OPENSHIFT_API_VERSION (as hack/controlplane.sh).
set -euo pipefail

CSO_COMMIT=${CSO_COMMIT:-bb8d2fd11a18ce59cf84a2982189d9ca2c23599e}
CSO_420_COMMIT=${CSO_420_COMMIT:-e8e9de4345ce79aafbdcf31eb4d4ce3682cfd6b7}
CSO_417_COMMIT=${CSO_417_COMMIT:-a039f8a2e73771f76e799ed497535705037f3bf5}
MANILA_417_COMMIT=${MANILA_417_COMMIT:-e5927046d6b810c817a1937f6c7c1f22ce18dadd}
CSI_OPERATOR_COMMIT=${CSI_OPERATOR_COMMIT:-f7f9dc59603d190abbcda1ae818f489c9dc2f167}
OPENSHIFT_API_VERSION=${OPENSHIFT_API_VERSION:-v0.0.0-20260728120005-8ba0b25b0f29}

CSO_MODULE=github.com/openshift/cluster-storage-operator
MANILA_417_MODULE=github.com/openshift/csi-driver-manila-operator
CSI_OPERATOR_MODULE=github.com/openshift/csi-operator

# name module commit package, one binary a line.
BINARIES="
cluster-storage-operator             $CSO_MODULE          $CSO_COMMIT          cmd/cluster-storage-operator
cluster-storage-operator-4.20        $CSO_MODULE          $CSO_420_COMMIT      cmd/cluster-storage-operator
cluster-storage-operator-4.17        $CSO_MODULE          $CSO_417_COMMIT      cmd/cluster-storage-operator
csi-driver-manila-operator-4.17      $MANILA_417_MODULE   $MANILA_417_COMMIT   cmd/csi-driver-manila-operator
openstack-manila-csi-driver-operator $CSI_OPERATOR_MODULE $CSI_OPERATOR_COMMIT cmd/openstack-manila-csi-driver-operator
"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The project's GOFLAGS say -mod=vendor for the project's own vendor/; these modules are not the
# project's (build_dir sets -mod per source). -buildvcs=false: an unpacked archive has no .git of its
# own and sits inside this repository's work tree, whose VCS state is not the binary's.
export GOTOOLCHAIN=local GOWORK=off
GOFLAGS_BASE="-trimpath -buildvcs=false -gcflags=all=-dwarf=false"
export GOFLAGS="-mod=mod $GOFLAGS_BASE"

log() { printf '[cso %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# fresh NAME WANT: true when OUT/NAME exists and its stamp names WANT (module@commit), whatever the
# source it was built from.
fresh() { [ -x "$OUT/$1" ] && [ "$(cut -d' ' -f1 "$OUT/.$1.version" 2>/dev/null)" = "$2" ]; }
stamp() { echo "$2" > "$OUT/.$1.version"; }

# download MODULE@REV: sets DIR (the module in the module cache) and VERSION (what the proxy resolved
# REV to), or returns 1 with the proxy's answer in ERR.
download() {
  local json
  json=$(cd "${TMPDIR:-/tmp}" && go mod download -json "$1" 2>/dev/null) || true
  DIR=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' <<<"$json")
  VERSION=$(sed -n 's/^[[:space:]]*"Version": "\(.*\)",*$/\1/p' <<<"$json")
  ERR=$(sed -n 's/^[[:space:]]*"Error": "\(.*\)",*$/\1/p' <<<"$json")
  ERR=${ERR#"$1: "}; ERR=${ERR//\\n\\t/ }
  [ -n "$DIR" ] && [ -d "$DIR" ]
}

# upstream_dir: the archives' directory (UPSTREAM_DIR, else the first existing default), or nothing.
upstream_dir() {
  local d
  if [ -n "${UPSTREAM_DIR:-}" ]; then echo "$UPSTREAM_DIR"; return; fi
  for d in "$ROOT/../shared/upstream" /work/shared/upstream; do
    [ -d "$d" ] && { (cd "$d" && pwd); return; }
  done
}

# unpack MODULE COMMIT: sets SRC to the unpacked archive of MODULE at COMMIT, or returns 1 with the
# reason in ERR. The archive is checked against SHA256SUMS every time; it is unpacked only when
# SRC_DIR/.STEM.unpacked does not name its checksum.
unpack() {
  local up stem archive sum want t
  up=$(upstream_dir)
  stem="${1##*/}-${2:0:12}"
  if [ -n "${UPSTREAM_DIR:-}" ]; then
    [ -d "$up" ] || { ERR="no archive directory: UPSTREAM_DIR=$up is not a directory"; return 1; }
  elif [ -z "$up" ]; then
    ERR="no archive directory (set UPSTREAM_DIR; looked in $ROOT/../shared/upstream and /work/shared/upstream)"; return 1
  fi
  archive="$up/$stem.tar.xz"
  [ -f "$archive" ] || { ERR="no archive $archive"; return 1; }
  want=$(awk -v f="$stem.tar.xz" '$2 == f || $2 == "*" f {print $1}' "$up/SHA256SUMS" 2>/dev/null)
  [ -n "$want" ] || { ERR="$stem.tar.xz is not listed in $up/SHA256SUMS"; return 1; }
  sum=$(sha256sum "$archive" | cut -d' ' -f1)
  [ "$sum" = "$want" ] ||
    { ERR="checksum mismatch for $archive: sha256 $sum, SHA256SUMS says $want; refusing it"; return 1; }
  SRC="$SRC_DIR/$stem"
  if [ -d "$SRC" ] && [ "$(cat "$SRC_DIR/.$stem.unpacked" 2>/dev/null)" = "$sum" ]; then return 0; fi
  t=$(now); mkdir -p "$SRC_DIR"; rm -rf "$SRC" "$SRC.tmp" "$SRC_DIR/.$stem.unpacked"; mkdir "$SRC.tmp"
  tar -xJf "$archive" -C "$SRC.tmp" || { rm -rf "$SRC.tmp"; ERR="could not unpack $archive"; return 1; }
  [ -f "$SRC.tmp/$stem/go.mod" ] || { rm -rf "$SRC.tmp"; ERR="$archive has no $stem/go.mod"; return 1; }
  mv "$SRC.tmp/$stem" "$SRC"; rmdir "$SRC.tmp"; echo "$sum" > "$SRC_DIR/.$stem.unpacked"
  log "unpacked $stem.tar.xz into $SRC in $(since "$t")"
}

# build_dir NAME SRC PKG: builds SRC/PKG into OUT/NAME, with -mod=vendor when SRC has vendor/.
build_dir() {
  local name=$1 src=$2 pkg=$3 mod=mod
  [ -f "$src/vendor/modules.txt" ] && mod=vendor
  log "$name: building ./$pkg in $src (-mod=$mod)"
  (cd "$src" && GOFLAGS="-mod=$mod $GOFLAGS_BASE" go build -ldflags "-s -w" -o "$OUT/$name.new" "./$pkg") \
    >"$OUT/$name.build.log" 2>&1 ||
    { tail -30 "$OUT/$name.build.log" >&2; rm -f "$OUT/$name.new"; ERR="go build failed (log: $OUT/$name.build.log)"; return 1; }
  mv "$OUT/$name.new" "$OUT/$name"; rm -f "$OUT/$name.build.log"
}

# keep_manifests NAME SRC: a CSO's manifests/, kept beside its binary as OUT/NAME.manifests.
keep_manifests() {
  case $1 in cluster-storage-operator*) ;; *) return 0 ;; esac
  [ -d "$2/manifests" ] || { ERR="$2 has no manifests/"; return 1; }
  rm -rf "$OUT/$1.manifests"; cp -r "$2/manifests" "$OUT/$1.manifests"
}

# build_module NAME MODULE COMMIT PKG: builds ./PKG of MODULE at COMMIT into OUT/NAME, from the proxy
# when it serves MODULE@COMMIT, else from the archive. Returns 1 with the reason in ERR.
build_module() {
  local name=$1 module=$2 commit=$3 pkg=$4 want="$2@$3" src t
  if fresh "$name" "$want"; then
    log "$name: $want already built ($(cut -d' ' -f2- "$OUT/.$name.version"))"
    case $name in cluster-storage-operator*) ;; *) return 0 ;; esac
    [ -d "$OUT/$name.manifests" ] && return 0
    unpack "$module" "$commit" && keep_manifests "$name" "$SRC"; return
  fi
  t=$(now)
  if download "$want"; then
    src="$SRC_DIR/$name-$VERSION"
    rm -rf "$src"; mkdir -p "$SRC_DIR"; cp -r "$DIR" "$src"; chmod -R u+w "$src"
    build_dir "$name" "$src" "$pkg" || return 1
    keep_manifests "$name" "$src" || return 1
    stamp "$name" "$want proxy $VERSION"
  else
    log "$name: the module proxy refused $want (${ERR:-no answer}); building from the archive"
    unpack "$module" "$commit" || { ERR="refused by the module proxy, and $ERR"; return 1; }
    build_dir "$name" "$SRC" "$pkg" || return 1
    keep_manifests "$name" "$SRC" || return 1
    stamp "$name" "$want archive ${SRC##*/}.tar.xz"
  fi
  log "$name: built in $(since "$t") ($(cut -d' ' -f2- "$OUT/.$name.version"))"
}

# copy_crds: the Storage CRD (CSO's own CR, operator.openshift.io/v1 storages, cluster-scoped) from
# openshift/api, the version the world's other OpenShift CRDs come from.
copy_crds() {
  local crd=0000_50_storage_01_storages.crd.yaml
  [ -f "$OUT/crds/$crd" ] && [ "$(cat "$OUT/crds/.version" 2>/dev/null)" = "$OPENSHIFT_API_VERSION" ] && return 0
  download "github.com/openshift/api@$OPENSHIFT_API_VERSION" ||
    die "crds: openshift/api@$OPENSHIFT_API_VERSION: ${ERR:-not downloaded}"
  mkdir -p "$OUT/crds"
  install -m 0644 "$DIR/operator/v1/zz_generated.crd-manifests/$crd" "$OUT/crds/"
  echo "$OPENSHIFT_API_VERSION" > "$OUT/crds/.version"
}

cmd_build() {
  OUT=${1:?usage: build OUT_DIR [NAME...]}; shift; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
  SRC_DIR=${SRC_DIR:-$(dirname "$(dirname "$OUT")")/cso-src}
  local t0 failed=() name module commit pkg msg want=" $* "; t0=$(now)
  for name in "$@"; do grep -q "^$name " <<<"$BINARIES" || die "unknown binary $name"; done
  (flock 9; copy_crds) 9>"$OUT/.crds.lock" || exit 1
  while read -r name module commit pkg; do
    [ -n "$name" ] || continue
    [ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
    # One build of a binary at a time (hack/deps.sh builds different ones side by side).
    exec 9>"$OUT/.$name.lock"; flock 9
    build_module "$name" "$module" "$commit" "$pkg" </dev/null || { log "$name: ERROR: $ERR"; failed+=("$name ($ERR)"); }
    exec 9>&-
  done <<<"$BINARIES"
  [ "${#failed[@]}" -eq 0 ] || { msg=$(printf '%s; ' "${failed[@]}"); die "not built: ${msg%; }"; }
  log "all built in $(since "$t0"): $(cd "$OUT" && echo *)"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  versions) while read -r name module commit _; do [ -z "$name" ] || echo "$name $module@$commit"; done <<<"$BINARIES" ;;
  *) sed -n '2,28p' "$0"; exit 2 ;;
esac
