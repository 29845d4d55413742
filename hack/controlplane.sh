#!/usr/bin/env bash
# controlplane.sh - run a real kube-apiserver + etcd ("envtest"-style) control plane, built by
# hack/k8s-binaries.sh from the Go module proxy only; and copy the CRDs the test world installs.
#
# Usage:
#   controlplane.sh crds   CRD_DIR            # copy the operator's CRDs out of Go modules into CRD_DIR
#   controlplane.sh start  BIN_DIR STATE_DIR  # start etcd + kube-apiserver on 127.0.0.1, random ports
#   controlplane.sh stop   STATE_DIR          # stop what `start` started (by PID)
#   controlplane.sh restart-apiserver STATE_DIR  # restart kube-apiserver alone, same port and etcd
#   controlplane.sh stop-apiserver STATE_DIR     # stop kube-apiserver alone; etcd keeps running
#   controlplane.sh start-apiserver STATE_DIR    # start it again after stop-apiserver, same port and etcd
#
# After `start`: export KUBECONFIG=STATE_DIR/kubeconfig   (client-cert auth, user in system:masters)
# For controller-runtime envtest: export KUBEBUILDER_ASSETS=BIN_DIR (holds kube-apiserver and etcd).
#
# Respects GOMODCACHE from the environment. Needs: go >= 1.26 (crds), openssl, curl.
# Tunables (env): K8S_VERSION (1.36.2), OPENSHIFT_API_VERSION, PROM_OPERATOR_VERSION, START_TIMEOUT (180: six shards start their worlds at once on two cores).
#   CONTROLPLANE_PORTS ("ETCD PEER APISERVER" for `start`; unset: random free ports below the ephemeral range).
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.36.2}"
OPENSHIFT_API_VERSION="${OPENSHIFT_API_VERSION:-v0.0.0-20260728120005-8ba0b25b0f29}"
PROM_OPERATOR_VERSION="${PROM_OPERATOR_VERSION:-v0.85.0}"
START_TIMEOUT="${START_TIMEOUT:-180}"

log() { printf '[controlplane %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# ---------------------------------------------------------------- crds
moddir() { # module@version -> directory in GOMODCACHE (downloads if needed)
  (cd "${TMPDIR:-/tmp}" && GOFLAGS=-mod=mod go mod download -json "$1") |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p'
}

cmd_crds() {
  local out="${1:?usage: crds CRD_DIR}" api k8s prom
  mkdir -p "$out"
  api=$(moddir "github.com/openshift/api@${OPENSHIFT_API_VERSION}"); [ -d "$api" ] || die "openshift/api not downloaded"
  k8s=$(moddir "k8s.io/kubernetes@v${K8S_VERSION}"); [ -d "$k8s" ] || die "k8s.io/kubernetes not downloaded"
  prom=$(moddir "github.com/prometheus-operator/prometheus-operator@${PROM_OPERATOR_VERSION}"); [ -d "$prom" ] || die "prometheus-operator not downloaded"
  # Only ONE feature-set variant per CRD (-Default); the variants share metadata.name.
  install -m 0644 \
    "$api/operator/v1/zz_generated.crd-manifests/0000_50_csi-driver_01_clustercsidrivers-Default.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_03_config-operator_01_proxies.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_featuregates.crd.yaml" \
    "$api/config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_apiservers-Default.crd.yaml" \
    "$k8s/cluster/addons/volumesnapshots/crd/snapshot.storage.k8s.io_volumesnapshotclasses.yaml" \
    "$k8s/cluster/addons/volumesnapshots/crd/snapshot.storage.k8s.io_volumesnapshots.yaml" \
    "$k8s/cluster/addons/volumesnapshots/crd/snapshot.storage.k8s.io_volumesnapshotcontents.yaml" \
    "$prom/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" \
    "$prom/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml" \
    "$out/"
  log "CRDs in $out:"; ls -1 "$out" >&2
}

# ---------------------------------------------------------------- start/stop
# free_port: a random free TCP port on 127.0.0.1 (bash /dev/tcp probe; small race, fine for tests).
# Below the kernel's ephemeral range: a port there may be the local end of an outgoing connection,
# which a connect probe cannot see and which makes a listener's bind fail ("address already in use").
free_port() {
  local p i lo=32768
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  [ "$lo" -gt 11000 ] || lo=32768
  for i in $(seq 1 200); do
    p=$(( (RANDOM << 15 | RANDOM) % (lo - 10000) + 10000 ))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  die "no free port"
}

gen_certs() { # $1 = cert dir
  local d="$1"
  mkdir -p "$d"; chmod 700 "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
    -subj "/CN=controlplane-ca" -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=kube-apiserver" \
    -keyout "$d/apiserver.key" -out "$d/apiserver.csr" 2>/dev/null
  # 10.0.0.1 is the `kubernetes` Service's ClusterIP (the first of --service-cluster-ip-range), where
  # a pod's in-cluster client dials the API server (a real node relays it, test/framework/realnode.go).
  openssl x509 -req -in "$d/apiserver.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 7 \
    -extfile <(printf 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n') \
    -out "$d/apiserver.crt" 2>/dev/null
  # The API server's identity towards kubelets (exec, logs, port-forward), which a kubelet authorizes
  # through the API server (RBAC: system:kubelet-api-admin, bound when a real node starts).
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=kube-apiserver-kubelet-client" \
    -keyout "$d/kubelet-client.key" -out "$d/kubelet-client.csr" 2>/dev/null
  openssl x509 -req -in "$d/kubelet-client.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 7 \
    -extfile <(printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n') \
    -out "$d/kubelet-client.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/O=system:masters/CN=admin" \
    -keyout "$d/admin.key" -out "$d/admin.csr" 2>/dev/null
  openssl x509 -req -in "$d/admin.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 7 \
    -extfile <(printf 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\n') \
    -out "$d/admin.crt" 2>/dev/null
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  openssl rsa -in "$d/sa.key" -pubout -out "$d/sa.pub" 2>/dev/null
}

start_apiserver() { # $1 bin dir, $2 state dir, $3 etcd port, $4 apiserver port
  local bin="$1" st="$2" ep="$3" ap="$4"
  # The test world runs up to a dozen kube-apiservers on two cores, and garbage collection took about
  # a seventh of their CPU: a heap target four times larger, bounded by a soft limit, takes a fifth off
  # their CPU (docs/benchmark.md) and changes nothing an API client sees. APISERVER_GOGC=100 is Go's.
  GOGC="${APISERVER_GOGC:-400}" GOMEMLIMIT="${APISERVER_GOMEMLIMIT:-768MiB}" "$bin/kube-apiserver" \
    --etcd-servers="http://127.0.0.1:$ep" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$ap" \
    --cert-dir="$st/certs" \
    --tls-cert-file="$st/certs/apiserver.crt" --tls-private-key-file="$st/certs/apiserver.key" \
    --client-ca-file="$st/certs/ca.crt" \
    --service-account-issuer="https://127.0.0.1:$ap" \
    --service-account-key-file="$st/certs/sa.pub" --service-account-signing-key-file="$st/certs/sa.key" \
    --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true \
    --authorization-mode=RBAC \
    --kubelet-client-certificate="$st/certs/kubelet-client.crt" --kubelet-client-key="$st/certs/kubelet-client.key" \
    --audit-policy-file="$st/audit-policy.yaml" --audit-log-path="$st/audit.log" --audit-log-format=json \
    >>"$st/kube-apiserver.log" 2>&1 &
  echo $! >"$st/kube-apiserver.pid"
}

wait_ready() { # $1 state dir, $2 apiserver port
  local st="$1" ap="$2" c="$1/certs" deadline=$(( $(date +%s) + START_TIMEOUT )) pause=0.2
  until curl -sf --cacert "$c/ca.crt" --cert "$c/admin.crt" --key "$c/admin.key" "https://127.0.0.1:$ap/readyz" >/dev/null 2>&1; do
    kill -0 "$(cat "$st/kube-apiserver.pid")" 2>/dev/null || { tail -20 "$st/kube-apiserver.log" >&2; cmd_stop "$st"; die "kube-apiserver exited"; }
    kill -0 "$(cat "$st/etcd.pid")" 2>/dev/null || { tail -20 "$st/etcd.log" >&2; cmd_stop "$st"; die "etcd exited"; }
    [ "$(date +%s)" -lt "$deadline" ] || { tail -20 "$st/kube-apiserver.log" >&2; cmd_stop "$st"; die "not ready after ${START_TIMEOUT}s"; }
    sleep "$pause"; pause=0.4 # the first try at 0.2 s; kube-apiserver takes seconds to be ready
  done
}

# restart-apiserver STATE: stops kube-apiserver and starts it again on the same port and etcd, as an
# upgrade or a crash of the control plane would.
cmd_restart-apiserver() {
  local st="${1:?usage: restart-apiserver STATE_DIR}" t0; t0=$(now)
  stop_pid "$st/kube-apiserver.pid" kube-apiserver
  start_apiserver "$(cat "$st/bin.dir")" "$st" "$(cat "$st/etcd.port")" "$(cat "$st/apiserver.port")"
  wait_ready "$st" "$(cat "$st/apiserver.port")"
  log "kube-apiserver restarted in $(since "$t0")"
}

# stop-apiserver STATE: stops kube-apiserver alone, as an outage of a hosted cluster's apiserver; etcd
# and its data stay, so start-apiserver brings the same cluster back on the same port.
cmd_stop-apiserver() {
  local st="${1:?usage: stop-apiserver STATE_DIR}" t0; t0=$(now)
  stop_pid "$st/kube-apiserver.pid" kube-apiserver
  log "kube-apiserver stopped in $(since "$t0")"
}

# start-apiserver STATE: starts kube-apiserver again after stop-apiserver.
cmd_start-apiserver() {
  local st="${1:?usage: start-apiserver STATE_DIR}" t0; t0=$(now)
  [ -f "$st/kube-apiserver.pid" ] && kill -0 "$(cat "$st/kube-apiserver.pid")" 2>/dev/null && die "kube-apiserver already running in $st"
  kill -0 "$(cat "$st/etcd.pid")" 2>/dev/null || die "etcd is not running in $st"
  start_apiserver "$(cat "$st/bin.dir")" "$st" "$(cat "$st/etcd.port")" "$(cat "$st/apiserver.port")"
  wait_ready "$st" "$(cat "$st/apiserver.port")"
  log "kube-apiserver started in $(since "$t0")"
}

cmd_start() {
  local bin="${1:?usage: start BIN_DIR STATE_DIR}" st="${2:?usage: start BIN_DIR STATE_DIR}" t0 ep pp ap extra=()
  bin="$(cd "$bin" && pwd)"; mkdir -p "$st"; st="$(cd "$st" && pwd)"
  [ -x "$bin/kube-apiserver" ] && [ -x "$bin/etcd" ] || die "$bin must hold kube-apiserver and etcd (run build)"
  [ -f "$st/etcd.pid" ] && kill -0 "$(cat "$st/etcd.pid")" 2>/dev/null && die "already running in $st"
  t0=$(now)
  gen_certs "$st/certs"
  if [ -n "${CONTROLPLANE_PORTS:-}" ]; then
    read -r ep pp ap <<<"$CONTROLPLANE_PORTS"
    [ -n "$ap" ] || die "CONTROLPLANE_PORTS must be three ports: etcd client, etcd peer, kube-apiserver"
  else
    ep=$(free_port); pp=$(free_port); ap=$(free_port)
  fi
  rm -rf "$st/etcd-data"; mkdir -p "$st/etcd-data"
  "$bin/etcd" --help 2>&1 | grep -q -- '--unsafe-no-fsync' && extra+=(--unsafe-no-fsync)
  "$bin/etcd" --name=cp --data-dir="$st/etcd-data" \
    --listen-client-urls="http://127.0.0.1:$ep" --advertise-client-urls="http://127.0.0.1:$ep" \
    --listen-peer-urls="http://127.0.0.1:$pp" --initial-advertise-peer-urls="http://127.0.0.1:$pp" \
    --initial-cluster="cp=http://127.0.0.1:$pp" --log-level=warn "${extra[@]}" \
    >"$st/etcd.log" 2>&1 &
  echo $! >"$st/etcd.pid"
  echo "$bin" >"$st/bin.dir"
  # Every request of a service account's user (the operator runs as one), at Metadata level: what the
  # benchmark counts. Of the tests' admin and the control plane itself, only the writes to a
  # ClusterCSIDriver: who wrote a condition, whoever it was (an in-process operator runs as admin).
  cat >"$st/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  userGroups: ["system:serviceaccounts"]
- level: Metadata
  verbs: ["create", "update", "patch", "delete"]
  resources: [{group: operator.openshift.io, resources: ["clustercsidrivers", "clustercsidrivers/status"]}]
- level: None
EOF
  start_apiserver "$bin" "$st" "$ep" "$ap"
  echo "$ep" >"$st/etcd.port"; echo "$ap" >"$st/apiserver.port"
  local c="$st/certs"
  wait_ready "$st" "$ap"
  b64() { base64 -w0 <"$1"; }
  cat >"$st/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: controlplane
  cluster:
    server: https://127.0.0.1:$ap
    certificate-authority-data: $(b64 "$c/ca.crt")
users:
- name: admin
  user:
    client-certificate-data: $(b64 "$c/admin.crt")
    client-key-data: $(b64 "$c/admin.key")
contexts:
- name: controlplane
  context: {cluster: controlplane, user: admin}
current-context: controlplane
EOF
  chmod 600 "$st/kubeconfig"
  log "ready in $(since "$t0"): apiserver https://127.0.0.1:$ap (pid $(cat "$st/kube-apiserver.pid")), etcd http://127.0.0.1:$ep (pid $(cat "$st/etcd.pid"))"
  echo "export KUBECONFIG=$st/kubeconfig"
}

stop_pid() { # $1 pidfile, $2 name
  local f="$1" pid i
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { log "$2 ($pid) ignored SIGTERM, sending SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$f"
}

cmd_stop() {
  local st="${1:?usage: stop STATE_DIR}" t0; t0=$(now)
  stop_pid "$st/kube-apiserver.pid" kube-apiserver   # apiserver first, then its storage
  stop_pid "$st/etcd.pid" etcd
  log "stopped in $(since "$t0")"
}

case "${1:-}" in
  crds|start|stop|restart-apiserver|stop-apiserver|start-apiserver) c="$1"; shift; "cmd_$c" "$@" ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
