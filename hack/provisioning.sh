#!/usr/bin/env bash
# provisioning.sh - build what the end-to-end provisioning world runs (test/framework/provisioning.go),
# from the Go module proxy only (no image registry, no GitHub/GCS downloads):
#   manila-csi-plugin        k8s.io/cloud-provider-openstack        MANILA_CSI_VERSION  [v1.36.0]
#   csi-provisioner          external-provisioner/v6                PROVISIONER_VERSION [v6.3.0]
#   csi-resizer              external-resizer/v2 (best effort)      RESIZER_VERSION     [v2.2.0]
#   csi-snapshotter          external-snapshotter/v8                SNAPSHOTTER_VERSION [v8.4.0]
#   snapshot-controller      external-snapshotter/v8                SNAPSHOTTER_VERSION
#   kube-controller-manager  k8s.io/kubernetes (hack/controlplane.sh) K8S_VERSION       [1.36.2]
#   csi-node-standin         hack/csi-node-standin (its own module)
#
# Usage:
#   provisioning.sh build OUT_DIR   # idempotent: a binary whose stamp names the pinned version is kept
#   provisioning.sh versions        # the pinned versions, one per line
#
# The proxy serves only some versions (v1.35.1 of the plugin, v6.4.0 of the provisioner are refused):
# keep these pins unless a newer one is proven. `go install m@v` refuses modules whose go.mod has
# replace directives, so each module is copied out of the module cache and built in place.
# external-snapshotter/v8 replaces its client/v8 module with ./client, a nested module the proxy's zip
# leaves out: client/v8 at the same version is put there before building.
# A resizer that fails to build is recorded in OUT_DIR/csi-resizer.failed, not fatal.
# Tunables (env): SRC_DIR (module copies; default OUT_DIR/../../provisioning-src), KCM_BUILD_DIR.
set -euo pipefail

MANILA_CSI_VERSION=${MANILA_CSI_VERSION:-v1.36.0}
PROVISIONER_VERSION=${PROVISIONER_VERSION:-v6.3.0}
RESIZER_VERSION=${RESIZER_VERSION:-v2.2.0}
SNAPSHOTTER_VERSION=${SNAPSHOTTER_VERSION:-v8.4.0}
K8S_VERSION=${K8S_VERSION:-1.36.2}
HACK=$(cd "$(dirname "$0")" && pwd)

# The project's GOFLAGS say -mod=vendor; these modules are not the project's and have no vendor/.
export GOFLAGS="-mod=mod -trimpath" GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOWORK=off

log() { printf '[provisioning %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# fresh NAME WANT: true when OUT/NAME exists and was built from WANT.
fresh() { [ -x "$OUT/$1" ] && [ "$(cat "$OUT/.$1.version" 2>/dev/null)" = "$2" ]; }
stamp() { echo "$2" > "$OUT/.$1.version"; }

# module_dir MODULE@VERSION: the module's directory in the module cache, downloaded from the proxy.
module_dir() {
  (cd "${TMPDIR:-/tmp}" && go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
}

# build_module NAME MODULE VERSION PKG LDFLAGS [NESTED DIR]: builds ./PKG of MODULE@VERSION into OUT/NAME.
# NESTED (optional) is a module that MODULE's go.mod replaces with ./DIR; it is copied there, same version.
build_module() {
  local name=$1 want="$2@$3" pkg=$4 ldf=$5 nested=${6:-} into=${7:-} dir src t
  if fresh "$name" "$want"; then log "$name: $want already built"; return 0; fi
  t=$(now)
  dir=$(module_dir "$want")
  [ -d "$dir" ] || { log "$want is not served by the module proxy"; return 1; }
  src="$SRC_DIR/$name-$3"
  rm -rf "$src"; mkdir -p "$SRC_DIR"; cp -r "$dir" "$src"
  if [ -n "$nested" ]; then
    dir=$(module_dir "$nested@$3")
    [ -d "$dir" ] || { log "$nested@$3 is not served by the module proxy"; return 1; }
    rm -rf "${src:?}/$into"; cp -r "$dir" "$src/$into"
  fi
  chmod -R u+w "$src"
  log "$name: building $want (module copy in $src)"
  (cd "$src" && go build -ldflags "$ldf" -o "$OUT/$name.new" "./$pkg") >"$OUT/$name.build.log" 2>&1 ||
    { tail -30 "$OUT/$name.build.log" >&2; rm -f "$OUT/$name.new"; return 1; }
  mv "$OUT/$name.new" "$OUT/$name"; stamp "$name" "$want"; rm -f "$OUT/$name.build.log"
  log "$name: built in $(since "$t")"
}

cmd_build() {
  OUT=${1:?usage: build OUT_DIR}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
  SRC_DIR=${SRC_DIR:-$(dirname "$(dirname "$OUT")")/provisioning-src}
  local t0 t; t0=$(now)

  build_module manila-csi-plugin k8s.io/cloud-provider-openstack "$MANILA_CSI_VERSION" cmd/manila-csi-plugin \
    "-s -w -X k8s.io/cloud-provider-openstack/pkg/version.Version=$MANILA_CSI_VERSION" || die "manila-csi-plugin did not build"
  build_module csi-provisioner github.com/kubernetes-csi/external-provisioner/v6 "$PROVISIONER_VERSION" cmd/csi-provisioner \
    "-s -w -X main.version=$PROVISIONER_VERSION" || die "csi-provisioner did not build"
  if build_module csi-resizer github.com/kubernetes-csi/external-resizer/v2 "$RESIZER_VERSION" cmd/csi-resizer \
      "-s -w -X main.version=$RESIZER_VERSION"; then
    rm -f "$OUT/csi-resizer.failed"
  else
    echo "external-resizer/v2@$RESIZER_VERSION did not build; see csi-resizer.build.log" > "$OUT/csi-resizer.failed"
    log "csi-resizer: did not build (recorded in $OUT/csi-resizer.failed); expansion tests skip"
  fi

  local snap=github.com/kubernetes-csi/external-snapshotter/v8 snap_client=github.com/kubernetes-csi/external-snapshotter/client/v8
  build_module csi-snapshotter "$snap" "$SNAPSHOTTER_VERSION" cmd/csi-snapshotter \
    "-s -w -X main.version=$SNAPSHOTTER_VERSION" "$snap_client" client || die "csi-snapshotter did not build"
  build_module snapshot-controller "$snap" "$SNAPSHOTTER_VERSION" cmd/snapshot-controller \
    "-s -w -X main.version=$SNAPSHOTTER_VERSION" "$snap_client" client || die "snapshot-controller did not build"

  if fresh kube-controller-manager "kubernetes@v$K8S_VERSION"; then
    log "kube-controller-manager: v$K8S_VERSION already built"
  else
    K8S_VERSION=$K8S_VERSION BUILD_DIR=${KCM_BUILD_DIR:-$(dirname "$(dirname "$OUT")")/kcm-build} \
      bash "$HACK/controlplane.sh" build-controller-manager "$OUT"
    stamp kube-controller-manager "kubernetes@v$K8S_VERSION"
  fi

  # Always rebuilt: its source is in this repository; warm, the Go build cache makes it a second.
  t=$(now)
  (cd "$HACK/csi-node-standin" && go build -ldflags "-s -w" -o "$OUT/csi-node-standin" .)
  log "csi-node-standin: built in $(since "$t")"
  log "all built in $(since "$t0"): $(cd "$OUT" && echo *)"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  versions) printf 'manila-csi-plugin %s\ncsi-provisioner %s\ncsi-resizer %s\ncsi-snapshotter %s\nsnapshot-controller %s\nkube-controller-manager v%s\n' \
    "$MANILA_CSI_VERSION" "$PROVISIONER_VERSION" "$RESIZER_VERSION" "$SNAPSHOTTER_VERSION" "$SNAPSHOTTER_VERSION" "$K8S_VERSION" ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
