#!/usr/bin/env bash
# deps.sh - install and build what `make demo` or `make test` needs, each step idempotent and cached under
# _output/, in parallel streams where the steps do not depend on each other, then print how long each
# step (and each binary a step names) took.
#
# Usage:
#   deps.sh demo          # what make demo uses: OpenStack's packages, the control plane, the CRDs and
#                         # the provisioning world's parts a claim needs
#   deps.sh test          # everything make test uses (the demo's set, then the rest)
#   deps.sh STEP...       # single steps, one after another (the Makefile's deps-* targets)
#
# Steps: apt (Keystone, Manila, PostgreSQL, ...), ceph (Debian's Ceph, then ceph-csi, which links against
# it), nfs (hack/nfs.sh: NFS-Ganesha, fuse-nfs, csi-driver-nfs), node (hack/node.sh: containerd, runc, pause), k8s-demo / k8s (hack/k8s-binaries.sh: all the Kubernetes-side binaries from one module in one go
# build; k8s-demo is the subset the demo runs), crds, cso (hack/cso.sh; cso-main, cso-4.20 and cso-4.17
# are its generations), prebuild (the project's packages into the build cache).
# Streams (make test): three, side by side, so that two go builds keep both cores busy through each
# other's single-threaded phases (module downloads, links) and the package manager's steps overlap
# the builds; the package manager's steps run one after another (dpkg takes one lock), ceph-csi after
# them as it links against Ceph. The streams are balanced by the steps' measured times.
# Each step's output goes to _output/deps/logs/STEP.log; a failing step is named with the end of its log.
# The table (step, seconds, what it built) is printed at the end and kept in _output/deps/last.txt.
# Environment (the Makefile passes it): K8S_VERSION, K8S_BIN, PROV_BIN, CSO_BIN, CRD_DIR, PROJECT_GOFLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTPUT=$PWD/_output
K8S_VERSION=${K8S_VERSION:-1.36.2}
K8S_BIN=${K8S_BIN:-$OUTPUT/bin/k8s-$K8S_VERSION}
PROV_BIN=${PROV_BIN:-$OUTPUT/bin/provisioning}
CSO_BIN=${CSO_BIN:-$OUTPUT/bin/cso}
CRD_DIR=${CRD_DIR:-$OUTPUT/crds}
PROJECT_GOFLAGS=${PROJECT_GOFLAGS:--mod=vendor -trimpath -gcflags=all=-dwarf=false}
DEPS=$OUTPUT/deps
export K8S_VERSION GOFLAGS= GOTOOLCHAIN=local

# The k8s binaries make demo runs (the rest are the resizer's and the snapshot half's).
DEMO_K8S="kube-apiserver etcd kube-controller-manager manila-csi-plugin csi-provisioner"

step_apt() { SHARE_SERVICE=1 DB=postgresql bash hack/openstack-peer.sh install; }
step_ceph() { bash hack/ceph.sh install && bash hack/ceph-csi.sh build "$PROV_BIN"; }
# NFS-Ganesha (with FSAL_CEPH: after Ceph), then fuse-nfs and csi-driver-nfs from their checked archives.
step_nfs() { bash hack/nfs.sh install && bash hack/nfs.sh build "$PROV_BIN"; }
# The real node's packages (containerd, runc, ...) and Kubernetes' pause built with gcc.
step_node() { bash hack/node.sh install && bash hack/node.sh build "$PROV_BIN"; }
# shellcheck disable=SC2086
step_k8s-demo() { bash hack/k8s-binaries.sh build "$K8S_BIN" "$PROV_BIN" $DEMO_K8S; }
step_k8s() { bash hack/k8s-binaries.sh build "$K8S_BIN" "$PROV_BIN"; }
step_crds() { bash hack/controlplane.sh crds "$CRD_DIR"; }
step_cso() { bash hack/cso.sh build "$CSO_BIN"; }
# The CSO generations in three steps, so they can build side by side: each pair shares its library-go
# and Kubernetes release, so the second of a pair reuses most of the first's compiled packages.
step_cso-main() { bash hack/cso.sh build "$CSO_BIN" cluster-storage-operator openstack-manila-csi-driver-operator; }
step_cso-4.20() { bash hack/cso.sh build "$CSO_BIN" cluster-storage-operator-4.20; }
step_cso-4.17() { bash hack/cso.sh build "$CSO_BIN" cluster-storage-operator-4.17 csi-driver-manila-operator-4.17; }
# The project's packages and their tests, compiled (not linked) into the build cache with make test's
# flags while a core is free at the end of the streams: the unit tests and the integration test binary
# then only link (go list -export compiles what it lists, test variants included). The fuzz targets'
# instrumented builds are not made here: only a link makes them, which a warm run would pay every time.
step_prebuild() { GOFLAGS=$PROJECT_GOFLAGS go build ./... && GOFLAGS=$PROJECT_GOFLAGS go list -export -test ./... >/dev/null; }

now() { date +%s.%N; }

# run STEP: runs one step with its output in its log; records "STEP SECONDS STATUS" in the results.
run() {
  local s=$1 t rc=0
  declare -F "step_$s" >/dev/null || { echo "deps: unknown step $s" >&2; return 2; }
  printf '== step %s (log: %s)\n' "$s" "${DEPS#"$PWD"/}/logs/$s.log"
  t=$(now)
  "step_$s" >"$DEPS/logs/$s.log" 2>&1 || rc=$?
  awk -v s="$s" -v a="$t" -v b="$(now)" -v rc="$rc" 'BEGIN{printf "%s %.0f %s\n", s, b-a, (rc == 0 ? "ok" : "FAILED")}' >>"$DEPS/results"
  if [ "$rc" -ne 0 ]; then
    printf '== step %s FAILED (exit %s); the end of its log:\n' "$s" "$rc"
    tail -40 "$DEPS/logs/$s.log" | sed 's/^/   /'
    return "$rc"
  fi
  printf '== step %s done\n' "$s"
}

# stream STEP...: runs steps one after another, stopping at the first that fails.
stream() { local s; for s in "$@"; do run "$s" || return 1; done; }

# table: each step's seconds, and under it the times its log gives for single binaries.
table() {
  local s secs status
  printf '%-10s %8s  %s\n' step seconds status
  while read -r s secs status; do
    printf '%-10s %8s  %s\n' "$s" "$secs" "$status"
    grep -hoE '(^|\] )[^ ]+: built in [0-9.]+s|built [a-z0-9. -]+ in [0-9.]+s|module resolved and downloaded in [0-9.]+s' \
      "$DEPS/logs/$s.log" 2>/dev/null | sed -E 's/^\] //; s/^/             /' || true
  done <"$DEPS/results"
  printf '%-10s %8s  (wall clock, streams side by side)\n' all "$1"
}

main() {
  local t0 pids=() rc=0 p
  mkdir -p "$DEPS/logs"; : >"$DEPS/results"
  t0=$(now)
  case "${1:-}" in
    demo)
      stream apt & pids+=($!)
      stream k8s-demo crds & pids+=($!) ;;
    test)
      stream apt ceph nfs node cso-4.17 & pids+=($!)
      stream k8s crds cso-4.20 & pids+=($!)
      stream cso-main prebuild & pids+=($!) ;;
    "") sed -n '2,22p' "$0"; exit 2 ;;
    *) stream "$@" || rc=1 ;;
  esac
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  table "$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}')" | tee "$DEPS/last.txt"
  [ "$rc" -eq 0 ] || { echo "deps: a step failed (above)" >&2; exit 1; }
}

main "$@"
