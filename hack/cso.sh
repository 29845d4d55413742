#!/usr/bin/env bash
# cso.sh - build what runs the Manila operator on a real OpenShift cluster, for the test world's
# cluster-storage-operator (test/framework/cso.go), from the Go module proxy only (no image registry,
# no GitHub downloads). Each pin is a commit; the proxy resolves it to its pseudo-version.
#   cluster-storage-operator             github.com/openshift/cluster-storage-operator  CSO_COMMIT      (main, 2026-08-04)
#   cluster-storage-operator-4.17        github.com/openshift/cluster-storage-operator  CSO_417_COMMIT  (release-4.17)
#   csi-driver-manila-operator-4.17      github.com/openshift/csi-driver-manila-operator MANILA_417_COMMIT (<= 4.17 predecessor)
#   openstack-manila-csi-driver-operator github.com/openshift/csi-operator              CSI_OPERATOR_COMMIT (4.18+ predecessor)
# and OUT_DIR/crds: the CRDs CSO needs that the world's `controlplane.sh crds` does not install
# (operator.openshift.io Storage, from the same openshift/api module version).
#
# Usage:
#   cso.sh build OUT_DIR   # idempotent: a binary whose stamp names its pinned module@commit is kept
#   cso.sh versions        # the pins, one per line
#
# `go install m@v` refuses modules whose go.mod has replace directives, so each module is copied out
# of the module cache and built in place with -mod=mod (the proxy's zips carry no vendor/). A module
# the proxy refuses stops the build with the proxy's own words: nothing is fetched from elsewhere.
# Tunables (env): SRC_DIR (module copies; default OUT_DIR/../../cso-src), the *_COMMIT pins above,
# OPENSHIFT_API_VERSION (as hack/controlplane.sh).
set -euo pipefail

CSO_COMMIT=${CSO_COMMIT:-bb8d2fd11a18ce59cf84a2982189d9ca2c23599e}
CSO_417_COMMIT=${CSO_417_COMMIT:-a039f8a2e73771f76e799ed497535705037f3bf5}
MANILA_417_COMMIT=${MANILA_417_COMMIT:-e5927046d6b810c817a1937f6c7c1f22ce18dadd}
CSI_OPERATOR_COMMIT=${CSI_OPERATOR_COMMIT:-f7f9dc59603d190abbcda1ae818f489c9dc2f167}
OPENSHIFT_API_VERSION=${OPENSHIFT_API_VERSION:-v0.0.0-20260728120005-8ba0b25b0f29}

CSO_MODULE=github.com/openshift/cluster-storage-operator
MANILA_417_MODULE=github.com/openshift/csi-driver-manila-operator
CSI_OPERATOR_MODULE=github.com/openshift/csi-operator

# The project's GOFLAGS say -mod=vendor; these modules are not the project's and have no vendor/.
export GOFLAGS="-mod=mod -trimpath" GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOWORK=off

log() { printf '[cso %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# fresh NAME WANT: true when OUT/NAME exists and was built from WANT.
fresh() { [ -x "$OUT/$1" ] && [ "$(cat "$OUT/.$1.version" 2>/dev/null)" = "$2" ]; }
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

# build_module NAME MODULE COMMIT PKG: builds ./PKG of MODULE at COMMIT into OUT/NAME. A refusal is
# asked once more (a refusal is final; a second ask only rules out a passing hiccup).
build_module() {
  local name=$1 module=$2 commit=$3 pkg=$4 want="$2@$3" src t
  if fresh "$name" "$want"; then log "$name: $want already built"; return 0; fi
  t=$(now)
  if ! download "$want"; then
    log "$name: the module proxy refused $want: ${ERR:-no answer}; asking once more"
    download "$want" || { log "$name: refused again: ${ERR:-no answer}"; return 1; }
  fi
  src="$SRC_DIR/$name-$VERSION"
  rm -rf "$src"; mkdir -p "$SRC_DIR"; cp -r "$DIR" "$src"; chmod -R u+w "$src"
  log "$name: building $module@$VERSION ./$pkg (module copy in $src)"
  (cd "$src" && go build -ldflags "-s -w" -o "$OUT/$name.new" "./$pkg") >"$OUT/$name.build.log" 2>&1 ||
    { tail -30 "$OUT/$name.build.log" >&2; rm -f "$OUT/$name.new"; return 1; }
  mv "$OUT/$name.new" "$OUT/$name"; stamp "$name" "$want"; rm -f "$OUT/$name.build.log"
  log "$name: built in $(since "$t")"
}

# copy_crds: the Storage CRD (CSO's own CR, operator.openshift.io/v1 storages, cluster-scoped) from
# openshift/api, the version the world's other OpenShift CRDs come from.
copy_crds() {
  download "github.com/openshift/api@$OPENSHIFT_API_VERSION" || die "openshift/api@$OPENSHIFT_API_VERSION: ${ERR:-not downloaded}"
  mkdir -p "$OUT/crds"
  install -m 0644 "$DIR/operator/v1/zz_generated.crd-manifests/0000_50_storage_01_storages.crd.yaml" "$OUT/crds/"
}

cmd_build() {
  OUT=${1:?usage: build OUT_DIR}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
  SRC_DIR=${SRC_DIR:-$(dirname "$(dirname "$OUT")")/cso-src}
  local t0 failed=(); t0=$(now)
  copy_crds
  build_module cluster-storage-operator "$CSO_MODULE" "$CSO_COMMIT" cmd/cluster-storage-operator || failed+=(cluster-storage-operator)
  build_module cluster-storage-operator-4.17 "$CSO_MODULE" "$CSO_417_COMMIT" cmd/cluster-storage-operator || failed+=(cluster-storage-operator-4.17)
  build_module csi-driver-manila-operator-4.17 "$MANILA_417_MODULE" "$MANILA_417_COMMIT" cmd/csi-driver-manila-operator ||
    failed+=(csi-driver-manila-operator-4.17)
  build_module openstack-manila-csi-driver-operator "$CSI_OPERATOR_MODULE" "$CSI_OPERATOR_COMMIT" cmd/openstack-manila-csi-driver-operator ||
    failed+=(openstack-manila-csi-driver-operator)
  [ "${#failed[@]}" -eq 0 ] || die "not built: ${failed[*]} (see above)"
  log "all built in $(since "$t0"): $(cd "$OUT" && echo *)"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  versions) printf 'cluster-storage-operator %s@%s\ncluster-storage-operator-4.17 %s@%s\ncsi-driver-manila-operator-4.17 %s@%s\nopenstack-manila-csi-driver-operator %s@%s\n' \
    "$CSO_MODULE" "$CSO_COMMIT" "$CSO_MODULE" "$CSO_417_COMMIT" "$MANILA_417_MODULE" "$MANILA_417_COMMIT" \
    "$CSI_OPERATOR_MODULE" "$CSI_OPERATOR_COMMIT" ;;
  *) sed -n '2,21p' "$0"; exit 2 ;;
esac
