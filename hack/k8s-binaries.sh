#!/usr/bin/env bash
# k8s-binaries.sh - build the Kubernetes side of the test world from ONE scratch Go module, in ONE
# `go build`, from the Go module proxy only (no image registry, no GitHub/GCS downloads):
#   kube-apiserver           k8s.io/kubernetes                      K8S_VERSION         [1.36.2]   -> K8S_BIN
#   etcd                     go.etcd.io/etcd/server/v3 (etcdmain)   the etcd client's release      -> K8S_BIN
#   kube-controller-manager  k8s.io/kubernetes                      K8S_VERSION                    -> PROV_BIN
#   kubelet, kube-scheduler  k8s.io/kubernetes                      K8S_VERSION (the real node)    -> K8S_BIN
#   manila-csi-plugin        k8s.io/cloud-provider-openstack        MANILA_CSI_VERSION  [v1.36.0]  -> PROV_BIN
#   csi-provisioner          external-provisioner/v6                PROVISIONER_VERSION [v6.3.0]   -> PROV_BIN
#   csi-resizer              external-resizer/v2                    RESIZER_VERSION     [v2.2.0]   -> PROV_BIN
#   csi-snapshotter          external-snapshotter/v8                SNAPSHOTTER_VERSION [v8.6.0]   -> PROV_BIN
#   snapshot-controller      external-snapshotter/v8                SNAPSHOTTER_VERSION            -> PROV_BIN
#   csi-node-standin         hack/csi-node-standin (its own module, seconds)                       -> PROV_BIN
#   agnhost                  k8s.io/kubernetes/test/images/agnhost  K8S_VERSION (the suite's image)  -> K8S_BIN
#   e2e-storage              k8s.io/kubernetes/test/e2e/storage/external, K8S_VERSION: a test binary
#                            of hack/e2e-storage (`go test -c`, after the build; the real node's suite) -> K8S_BIN
#
# Usage:
#   k8s-binaries.sh build K8S_BIN PROV_BIN [NAME...]  # the named binaries (default: all); idempotent
#   k8s-binaries.sh versions                          # the pins, one per line
#
# Why one module: these binaries share most of what they compile (k8s.io/api, apimachinery, client-go,
# component-base, grpc, protobuf, the CSI spec and csi-lib-utils). Built from separate modules, each
# compiled its own copy (the module graphs differed by a patch release here and there, so nothing was
# reused from the build cache): about 38 minutes cold on 2 cores. Here the pins agree on the Kubernetes
# minor (0.36) and every staging module is pinned to K8S_VERSION's v0.36.Z, so minimal version selection
# moves each binary at most a patch release from its own go.mod (printed into the module's
# versions.txt), and every shared package compiles once. SNAPSHOTTER_VERSION is v8.6.0, the release
# built on Kubernetes 0.36 (v8.4.0 was on 0.34; the proxy serves no v8.5.0).
# `go build -o DIR/ PKG...` builds them in one action graph, so both cores stay busy across binaries.
# A binary is kept when its stamp (PROV_BIN/.NAME.version or K8S_BIN/.NAME.version) names the same pins;
# asking for a subset (make demo) builds only that subset, and a later full build adds the rest.
# Dependency modules' replace directives do not apply here: external-snapshotter replaces its
# client/v8 with ./client, which is the module client/v8 at the same version, required below.
# Tunables (env): the *_VERSION pins above, BUILD_DIR (the scratch module; default
# K8S_BIN/../../k8s-build). GOFLAGS: this script sets -mod=mod -trimpath -buildvcs=false
# -gcflags=all=-dwarf=false, the flags every build of the test world uses, so they share the build cache
# (the binaries are linked with -s -w: no debug info is compiled that the link would drop).
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.36.2}
MANILA_CSI_VERSION=${MANILA_CSI_VERSION:-v1.36.0}
PROVISIONER_VERSION=${PROVISIONER_VERSION:-v6.3.0}
RESIZER_VERSION=${RESIZER_VERSION:-v2.2.0}
SNAPSHOTTER_VERSION=${SNAPSHOTTER_VERSION:-v8.6.0}
HACK=$(cd "$(dirname "$0")" && pwd)

export GOFLAGS="-mod=mod -trimpath -buildvcs=false -gcflags=all=-dwarf=false" GOTOOLCHAIN=${GOTOOLCHAIN:-local} GOWORK=off

log() { printf '[k8s-binaries %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

SNAP=github.com/kubernetes-csi/external-snapshotter
# name  output(k8s|prov)  module@version (what the binary is)  package  -X flags of its link
binaries() {
  local minor=${K8S_VERSION#*.}; minor=${minor%%.*}
  local kver="-X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  cat <<EOF
kube-apiserver k8s k8s.io/kubernetes@v$K8S_VERSION k8s.io/kubernetes/cmd/kube-apiserver $kver
etcd k8s go.etcd.io/etcd/server/v3 example.com/k8s-binaries/cmd/etcd
kube-controller-manager prov k8s.io/kubernetes@v$K8S_VERSION k8s.io/kubernetes/cmd/kube-controller-manager $kver
kubelet k8s k8s.io/kubernetes@v$K8S_VERSION k8s.io/kubernetes/cmd/kubelet $kver
kube-scheduler k8s k8s.io/kubernetes@v$K8S_VERSION k8s.io/kubernetes/cmd/kube-scheduler $kver
manila-csi-plugin prov k8s.io/cloud-provider-openstack@$MANILA_CSI_VERSION k8s.io/cloud-provider-openstack/cmd/manila-csi-plugin -X k8s.io/cloud-provider-openstack/pkg/version.Version=$MANILA_CSI_VERSION
csi-provisioner prov github.com/kubernetes-csi/external-provisioner/v6@$PROVISIONER_VERSION github.com/kubernetes-csi/external-provisioner/v6/cmd/csi-provisioner -X main.version=$PROVISIONER_VERSION
csi-resizer prov github.com/kubernetes-csi/external-resizer/v2@$RESIZER_VERSION github.com/kubernetes-csi/external-resizer/v2/cmd/csi-resizer -X main.version=$RESIZER_VERSION
csi-snapshotter prov $SNAP/v8@$SNAPSHOTTER_VERSION $SNAP/v8/cmd/csi-snapshotter -X main.version=$SNAPSHOTTER_VERSION
snapshot-controller prov $SNAP/v8@$SNAPSHOTTER_VERSION $SNAP/v8/cmd/snapshot-controller -X main.version=$SNAPSHOTTER_VERSION
agnhost k8s k8s.io/kubernetes@v$K8S_VERSION k8s.io/kubernetes/test/images/agnhost
e2e-storage k8s k8s.io/kubernetes@v$K8S_VERSION example.com/k8s-binaries/e2estorage $kver
EOF
}

# pins: what a stamp names; a change of any pin (or of Go) rebuilds.
pins() { echo "k8s=$K8S_VERSION manila=$MANILA_CSI_VERSION provisioner=$PROVISIONER_VERSION resizer=$RESIZER_VERSION snapshotter=$SNAPSHOTTER_VERSION $(go env GOVERSION)"; }

outdir() { if [ "$1" = k8s ]; then echo "$K8S_BIN"; else echo "$PROV_BIN"; fi; }
# stamp NAME: what a binary's stamp holds; the suite's own source is in this repository.
stamp() { if [ "$1" = e2e-storage ]; then echo "$(pins) src=$(cat "$HACK"/e2e-storage/*.go | sha256sum | cut -c1-16)"; else pins; fi; }
fresh() { local d; d=$(outdir "$2"); [ -x "$d/$1" ] && [ "$(cat "$d/.$1.version" 2>/dev/null)" = "$(stamp "$1")" ]; }

# write_module: the scratch module requiring every binary's module, staging modules pinned to K8S_VERSION.
write_module() {
  local staging minor=${K8S_VERSION#*.} gomod etcd
  minor=${minor%%.*}
  rm -rf "$BUILD_DIR"; mkdir -p "$BUILD_DIR/cmd/etcd" "$BUILD_DIR/e2estorage"
  cd "$BUILD_DIR"
  # The suite's package, without its go.mod (which only keeps it out of the operator's module).
  cp "$HACK"/e2e-storage/*.go e2estorage/
  # k8s.io/kubernetes's own go.mod replaces every staging module with ./staging/...: a module that
  # requires it must pin each to its published v0.Y.Z.
  gomod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  staging=$(sed -n '/^replace (/,/^)/p' "$gomod" | awk '/=>/ {print $1}')
  [ -n "$staging" ] || die "could not read staging modules from k8s.io/kubernetes@v$K8S_VERSION go.mod"
  {
    printf 'module example.com/k8s-binaries\n\ngo 1.26.0\n\nrequire (\n'
    printf '\tk8s.io/kubernetes v%s\n' "$K8S_VERSION"
    printf '\tk8s.io/cloud-provider-openstack %s\n' "$MANILA_CSI_VERSION"
    printf '\tgithub.com/kubernetes-csi/external-provisioner/v6 %s\n' "$PROVISIONER_VERSION"
    printf '\tgithub.com/kubernetes-csi/external-resizer/v2 %s\n' "$RESIZER_VERSION"
    printf '\t%s/v8 %s\n\t%s/client/v8 %s\n)\n\nreplace (\n' "$SNAP" "$SNAPSHOTTER_VERSION" "$SNAP" "$SNAPSHOTTER_VERSION"
    for m in $staging; do printf '\t%s => %s v0.%s.%s\n' "$m" "$m" "$minor" "${K8S_VERSION##*.}"; done
    printf ')\n\n'
    # tool lines keep each binary's package (and so its module) through `go mod tidy`.
    binaries | awk '$4 !~ /^example.com/ {print "tool " $4}'
    # (the suite's package is in this module: tidy keeps what its test imports)
  } > go.mod
  cat > cmd/etcd/main.go <<'EOF'
// Command etcd is upstream etcd (go.etcd.io/etcd/server/v3/etcdmain), built from the module proxy.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
  go mod tidy >tidy.log 2>&1 || { cat tidy.log >&2; die "go mod tidy failed"; }
  # etcd is one release: the sidecars' etcd client modules may select a later patch than the server
  # k8s.io/kubernetes names; the server follows them, so etcd is not built from two patch releases.
  etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/api/v3)
  if [ "$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)" != "$etcd" ]; then
    go get "go.etcd.io/etcd/server/v3@$etcd" "go.etcd.io/etcd/pkg/v3@$etcd" >>tidy.log 2>&1 &&
      go mod tidy >>tidy.log 2>&1 || { cat tidy.log >&2; die "go get etcd $etcd failed"; }
  fi
  # What each binary is built with, against what its own go.mod asked for.
  go list -m all > versions.txt
}

cmd_build() {
  K8S_BIN=${1:?usage: build K8S_BIN PROV_BIN [NAME...]}; PROV_BIN=${2:?usage: build K8S_BIN PROV_BIN [NAME...]}; shift 2
  mkdir -p "$K8S_BIN" "$PROV_BIN"; K8S_BIN=$(cd "$K8S_BIN" && pwd); PROV_BIN=$(cd "$PROV_BIN" && pwd)
  BUILD_DIR=${BUILD_DIR:-$(dirname "$(dirname "$K8S_BIN")")/k8s-build}
  local want=("$@") todo=() pkgs=() ldf=() tests=() name out ver pkg x t tmp
  [ ${#want[@]} -gt 0 ] || mapfile -t want < <(binaries | awk '{print $1}')
  for name in "${want[@]}"; do
    read -r _ out ver pkg x < <(binaries | awk -v n="$name" '$1 == n') || die "unknown binary $name"
    if fresh "$name" "$out"; then log "$name: already built ($(pins))"; continue; fi
    todo+=("$name")
    if [ "$name" = e2e-storage ]; then tests+=("$x"); continue; fi
    pkgs+=("${pkg/#example.com\/k8s-binaries/.}")
    # The last -ldflags matching a package wins: each binary's link gets its own version variables.
    ldf+=("-ldflags=${pkg/#example.com\/k8s-binaries/.}=-s -w $x")
  done
  exec 9>"$K8S_BIN/.k8s-binaries.lock"; flock 9
  if [ ${#todo[@]} -gt 0 ]; then
    t=$(now); write_module; log "module resolved and downloaded in $(since "$t")"
    t=$(now); tmp=$(mktemp -d "$BUILD_DIR/out.XXXX")
    log "building ${todo[*]} in one go build"
    if [ ${#pkgs[@]} -gt 0 ]; then
      go build "${ldf[@]}" -o "$tmp/" "${pkgs[@]}" || die "go build of ${todo[*]} failed"
    fi
    # A test binary is its own `go test -c`; it shares the build cache with the binaries above.
    if [ ${#tests[@]} -gt 0 ]; then
      go test -c -ldflags="-s -w ${tests[0]}" -o "$tmp/e2e-storage" ./e2estorage || die "go test -c of the storage suite failed"
    fi
    log "built ${todo[*]} in $(since "$t")"
    for name in "${todo[@]}"; do
      out=$(outdir "$(binaries | awk -v n="$name" '$1 == n {print $2}')")
      mv "$tmp/$name" "$out/$name"; stamp "$name" > "$out/.$name.version"
    done
    rm -rf "$tmp"
  fi
  # Its source is in this repository: always rebuilt (a second, warm).
  t=$(now)
  (cd "$HACK/csi-node-standin" && go build -ldflags "-s -w" -o "$PROV_BIN/csi-node-standin" .)
  log "csi-node-standin: built in $(since "$t")"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  versions) binaries | awk '{print $1, $3}' ;;
  *) sed -n '2,34p' "$0"; exit 2 ;;
esac
