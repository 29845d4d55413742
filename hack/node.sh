#!/usr/bin/env bash
# node.sh - a real node of the test world: Debian's containerd and runc, and a kubelet, in a mount, PID
# and network namespace of their own (../shared/REFERENCE.md section 18). Nothing of the node reaches
# the machine: its /var/lib/kubelet, the sysctls the kubelet writes and its containers' mounts stay in
# its mount namespace, its processes die with its PID namespace, and its host-network pods bind and
# reach only its own loopback (the test relays the ports it needs of the machine's 127.0.0.1 into it,
# test/framework/realnode.go), where the OpenStack metadata service is a file server on
# 169.254.169.254:80 serving DIR/metadata (what a VM's metadata service says: its instance ID).
#
# Usage:
#   node.sh install            # containerd, runc, the CNI plugins, busybox (static); root; idempotent
#   node.sh build OUT          # OUT/pause: Kubernetes' pause, from k8s.io/kubernetes's build/pause; and
#                              # OUT/csi-node-driver-registrar (v2.17.0) and OUT/livenessprobe (v2.19.0)
#                              # from their checked archives in UPSTREAM_DIR (the proxy refuses them)
#   node.sh run DIR KUBELET    # as PID 1 of the node's namespaces (test/framework/realnode.go starts it
#                              # under unshare): containerd with DIR/containerd.toml, the image archives
#                              # DIR/images/*.tar imported, then KUBELET with DIR/kubelet.yaml and
#                              # DIR/kubeconfig until SIGTERM, which stops the kubelet, then containerd;
#                              # env NODE_NAME: the kubelet's node name
set -euo pipefail
HACK=$(cd "$(dirname "$0")" && pwd)
log() { printf '[node %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
# shellcheck source=hack/lib.sh
. "$HACK/lib.sh"
K8S_VERSION=${K8S_VERSION:-1.36.2}
PAUSE_VERSION=3.10.2
if [ -z "${UPSTREAM_DIR:-}" ]; then
  for UPSTREAM_DIR in "$HACK/../../shared/upstream" /work/shared/upstream; do [ -d "$UPSTREAM_DIR" ] && break; done
fi
REGISTRAR_ARCHIVE=${REGISTRAR_ARCHIVE:-$UPSTREAM_DIR/node-driver-registrar-c5794c45f34c.tar.xz}
LIVENESSPROBE_ARCHIVE=${LIVENESSPROBE_ARCHIVE:-$UPSTREAM_DIR/livenessprobe-d2d15a5e8217.tar.xz}

cmd_install() { install_packages containerd runc containernetworking-plugins busybox-static iproute2; }

cmd_build() {
  local out=${1:?usage: build OUT}
  mkdir -p "$out"; out=$(cd "$out" && pwd)
  build_pause "$out"
  build_sidecar "$out" csi-node-driver-registrar "$REGISTRAR_ARCHIVE" v2.17.0
  build_sidecar "$out" livenessprobe "$LIVENESSPROBE_ARCHIVE" v2.19.0
}

build_pause() {
  local out=$1 src stamp
  stamp="k8s=$K8S_VERSION pause=$PAUSE_VERSION $(gcc -dumpversion)"
  if [ -x "$out/pause" ] && [ "$(cat "$out/.pause.version" 2>/dev/null)" = "$stamp" ]; then
    log "pause is built ($stamp)"; return 0
  fi
  src=$(cd /tmp && GOFLAGS=-mod=mod GOTOOLCHAIN=local go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" |
    sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -f "$src/build/pause/linux/pause.c" ] || die "no build/pause/linux/pause.c in k8s.io/kubernetes@v$K8S_VERSION"
  gcc -Os -static -Wall -DVERSION="$PAUSE_VERSION" -o "$out/pause.tmp" "$src/build/pause/linux/pause.c"
  mv "$out/pause.tmp" "$out/pause"; echo "$stamp" >"$out/.pause.version"
  log "pause $PAUSE_VERSION built"
}

# build_sidecar OUT NAME ARCHIVE VERSION: ./cmd/NAME of a kubernetes-csi archive, static, with its
# vendor/ and the flags of the test world's other builds.
build_sidecar() {
  local out=$1 name=$2 archive=$3 version=$4 stamp work src t
  stamp="$name $(checked_archive "$archive") $(go env GOVERSION)"
  if [ -x "$out/$name" ] && [ "$(cat "$out/.$name.version" 2>/dev/null)" = "$stamp" ]; then
    log "$name is built"; return 0
  fi
  t=$(date +%s)
  work=$out/../../node-src
  src=$(unpack "$archive" "$work")
  (cd "$src" && GOFLAGS="-mod=vendor -trimpath -buildvcs=false -gcflags=all=-dwarf=false" GOTOOLCHAIN=local GOWORK=off CGO_ENABLED=0 \
    go build -ldflags "-s -w -X main.version=$version" -o "$out/$name" "./cmd/$name")
  echo "$stamp" >"$out/.$name.version"
  log "$name: built in $(( $(date +%s) - t ))s"
}

# run: the node's PID 1. bash stays PID 1 (not exec'd into the kubelet) so that the shims containerd
# leaves behind are reaped.
cmd_run() {
  local d=${1:?usage: run DIR KUBELET} kubelet=${2:?usage: run DIR KUBELET} f b kpid cpid
  ip link set lo up
  ip addr add 169.254.169.254/32 dev lo
  busybox httpd -f -p 169.254.169.254:80 -h "$d/metadata" &
  mount --make-rshared /
  mkdir -p "$d/kubelet-root" /var/lib/kubelet
  mount --bind "$d/kubelet-root" /var/lib/kubelet
  mount --make-rshared /var/lib/kubelet
  # The kubelet sets these; the machine keeps its own values.
  for f in vm/overcommit_memory kernel/panic kernel/panic_on_oops; do
    cp "/proc/sys/$f" "$d/sysctl-${f##*/}"; mount --bind "$d/sysctl-${f##*/}" "/proc/sys/$f"
  done
  # No iptables: the kubelet's chains are not needed (no Services here), and the node's network
  # namespace has no netfilter of its own to change. It logs the failure and carries on.
  printf '#!/bin/sh\necho "no iptables on a test-world node" >&2\nexit 1\n' >"$d/no-xtables"; chmod +x "$d/no-xtables"
  for b in iptables ip6tables iptables-legacy ip6tables-legacy iptables-nft ip6tables-nft xtables-legacy-multi \
           xtables-nft-multi iptables-save iptables-restore ip6tables-save ip6tables-restore; do
    if [ -e "/usr/sbin/$b" ]; then mount --bind "$d/no-xtables" "/usr/sbin/$b"; fi
  done
  containerd --config "$d/containerd.toml" >"$d/containerd.log" 2>&1 & cpid=$!
  for _ in $(seq 200); do [ -S "$d/containerd.sock" ] && break; sleep 0.05; done
  [ -S "$d/containerd.sock" ] || die "containerd did not start (see $d/containerd.log)"
  for f in "$d"/images/*.tar; do
    ctr -a "$d/containerd.sock" -n k8s.io images import "$f" >/dev/null
  done
  log "containerd up, images imported; starting the kubelet"
  "$kubelet" --config "$d/kubelet.yaml" --kubeconfig "$d/kubeconfig" --hostname-override "$NODE_NAME" \
    --cert-dir "$d/serving-certs" --v=2 >"$d/kubelet.log" 2>&1 & kpid=$!
  trap 'kill -TERM $kpid 2>/dev/null; wait $kpid; kill -TERM $cpid 2>/dev/null; wait $cpid; exit 0' TERM INT
  wait $kpid || die "the kubelet exited (see $d/kubelet.log)"
}

case "${1:-}" in
  install) cmd_install ;;
  build) shift; cmd_build "$@" ;;
  run) shift; cmd_run "$@" ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
