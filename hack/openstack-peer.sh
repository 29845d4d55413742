#!/usr/bin/env bash
# openstack-peer.sh — run a REAL Keystone (Zed, 22.0.2) + Manila API (Zed, 15.1.0)
# from Debian 12 packages on loopback, for integration tests / benchmarks.
#
# Usage:
#   openstack-peer.sh install                 # apt install (idempotent), ~3 min on a fresh box
#   openstack-peer.sh setup  DIR              # write configs + sqlite DBs + keys + bootstrap into DIR
#   openstack-peer.sh start  DIR              # start keystone + manila-api (setup must have run)
#   openstack-peer.sh stop   DIR              # stop by PID files in DIR/run
#   openstack-peer.sh status DIR
#   openstack-peer.sh seed   DIR              # create sample share types via the Manila API
#   openstack-peer.sh bench  DIR              # latency medians (token issue/validate, share-type list) + RSS
#   openstack-peer.sh all    DIR              # install + setup + start + seed
#   openstack-peer.sh register-share-host DIR HOST ZONE   # a share service record in ZONE, so Manila
#     lists that availability zone (hack/manila/register_share_host.py; no process runs for it)
#   openstack-peer.sh start-keystone|stop-keystone|start-manila|stop-manila DIR   # fault tests
#     (start-keystone honours KEYSTONE_TOKEN_EXPIRATION, in seconds)
#
# `setup` records the ports and options in DIR/peer.env; later commands on DIR read them back, so a
# test only chooses ports once.
#
# Environment knobs (defaults in brackets):
#   KEYSTONE_PORT [15000]  MANILA_PORT [18786]  ADMIN_PASSWORD [secret]
#   MANILA_AUTH   [keystone]   keystone | noauth   (noauth: manila needs no Keystone; noauthv2 breaks
#                              with Debian's api-paste.ini: KeyError 'noauthv2' in the /v1 pipeline)
#   MANILA_SERVER [eventlet]   eventlet (hack/manila/manila_all.py --api-only, one process) | uwsgi (manila-wsgi under uwsgi)
#   SHAREV2_URL_STYLE [plain]  plain -> http://127.0.0.1:PORT/v2 ; project -> .../v2/%(project_id)s
#   KEYSTONE_PROCESSES [1]     uwsgi worker processes for keystone (threads are always 1: sqlite)
#   DB            [sqlite]     sqlite | postgresql  (postgresql: private PG 15 cluster in DIR/pg on
#                              127.0.0.1:PG_PORT [15432], runs the REAL manila alembic migrations)
#   SERVICE_START_TIMEOUT [240] seconds Keystone's and Manila's API may take to answer after a start
#   SCHEMA_CACHE  [unset]      a directory where `setup` keeps the migrated empty databases (per DB
#                              kind and package versions) and copies them, instead of migrating anew
#   SHARE_SERVICE [0]          1: Manila also runs its scheduler and a share service whose backend
#                              SHARE_BACKEND [testnfs] is hack/manila/manila_testbackend.py (no data
#                              path: fake NFS exports), beside two CephFS backends of the same file,
#                              `cephfs` and `cephfs_nocephx` (native CEPHFS, fake monitors, cephx
#                              keys; the second refuses every cephx rule). API, scheduler and share
#                              service then run in ONE process (hack/manila/manila_all.py) so the
#                              fake:// RPC transport connects them; start-manila/stop-manila
#                              start/stop that process, and a start returns once every backend's
#                              driver is initialised and the scheduler lists SHARE_BACKEND's pool.
#                              With CEPH_ENV (the cluster.env of a hack/ceph.sh cluster), a third
#                              CephFS backend, `cephfs_native`, is Manila's own CephFS driver
#                              (manila.share.drivers.cephfs.driver.CephFSDriver, native CEPHFS,
#                              cephx) on that real Ceph: its shares, access rules and keys are Ceph's.
#                              With NFS_ENV too (the nfs.env of a hack/nfs.sh Ganesha for that Ceph),
#                              a fourth, `cephfs_nfs`, is the same driver with its NFS helper: the
#                              subvolumes exported by that real NFS-Ganesha, which Manila manages
#                              over D-Bus (export files, AddExport/UpdateExport/RemoveExport), its
#                              access rules of type ip enforced by Ganesha. The Manila process then
#                              runs in the Ganesha's mount namespace, which holds its D-Bus.
#                              Use with
#                              DB=postgresql: on sqlite, deleting a share fails ("database is locked").
#                              Its log is DIR/log/manila-all.log. `install` adds manila-scheduler and
#                              manila-share.
#
# Everything binds 127.0.0.1 only.  Processes are stopped by PID only.
# Writes: DIR/*, /etc/keystone + /etc/manila untouched except by the packages themselves.
set -euo pipefail

KEYSTONE_PORT=${KEYSTONE_PORT:-15000}
MANILA_PORT=${MANILA_PORT:-18786}
ADMIN_PASSWORD=${ADMIN_PASSWORD:-secret}
MANILA_SERVICE_PASSWORD=${MANILA_SERVICE_PASSWORD:-manilapass}
MANILA_AUTH=${MANILA_AUTH:-keystone}
MANILA_SERVER=${MANILA_SERVER:-eventlet}
SHAREV2_URL_STYLE=${SHAREV2_URL_STYLE:-plain}
KEYSTONE_PROCESSES=${KEYSTONE_PROCESSES:-1}
REGION=${REGION:-RegionOne}
DB=${DB:-sqlite}
SHARE_SERVICE=${SHARE_SERVICE:-0}
SHARE_BACKEND=${SHARE_BACKEND:-testnfs}
CEPH_ENV=${CEPH_ENV:-}
NFS_ENV=${NFS_ENV:-}
SCHEMA_CACHE=${SCHEMA_CACHE:-}
# A start is seconds of a core importing Keystone or Manila; with a make test's six shards on two
# cores it took over a minute (the shard worlds' first starts), and a 60 s deadline failed restarts.
SERVICE_START_TIMEOUT=${SERVICE_START_TIMEOUT:-240}
HACK_DIR=$(cd "$(dirname "$0")" && pwd)
PG_PORT=${PG_PORT:-15432}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# Debian's tools must run with Debian's python, not a pyenv/venv python3 that may be first in PATH.
PY=/usr/bin/python3
case "$MANILA_AUTH" in keystone|noauth) ;; *) echo "MANILA_AUTH must be keystone or noauth" >&2; exit 2;; esac
case "$DB" in sqlite|postgresql) ;; *) echo "DB must be sqlite or postgresql" >&2; exit 2;; esac
case "$MANILA_SERVER" in eventlet|uwsgi) ;; *) echo "MANILA_SERVER must be eventlet or uwsgi" >&2; exit 2;; esac
case "$SHARE_SERVICE" in 0|1) ;; *) echo "SHARE_SERVICE must be 0 or 1" >&2; exit 2;; esac
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

trap '' PIPE   # a closed stdout/stderr pipe (e.g. `| head`) must not kill a half-done stop
log() { printf '[openstack-peer %(%H:%M:%S)T] %s\n' -1 "$*" >&2 2>/dev/null || true; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b-a}'; }

PKGS=(keystone manila-api uwsgi-core uwsgi-plugin-python3 curl sqlite3 openssl)
if [ "$DB" = postgresql ]; then PKGS+=(postgresql-15 python3-psycopg2); fi
if [ "$SHARE_SERVICE" = 1 ]; then PKGS+=(manila-scheduler manila-share); fi

cmd_install() {
  local t0; t0=$(now)
  if dpkg-query -W -f='${Status}\n' "${PKGS[@]}" 2>/dev/null | grep -vq 'install ok installed' \
     || [ "$(dpkg-query -W -f='${Status}\n' "${PKGS[@]}" 2>/dev/null | wc -l)" -ne "${#PKGS[@]}" ]; then
    [ "$(id -u)" = 0 ] || die "install needs root"
    # 1) never let postinst scripts start daemons (no systemd here; the sysv init scripts would
    #    bind 0.0.0.0:5000/8786). Docker-style policy-rc.d; only remove it if we created it.
    local created_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; created_policy=1
    fi
    # 2) preseed debconf: no dbconfig-common, no admin bootstrap, no endpoint registration, no rabbit.
    debconf-set-selections <<'EOF'
keystone keystone/configure_db boolean false
keystone keystone/dbconfig-install boolean false
keystone keystone/create-admin-tenant boolean false
keystone keystone/register-endpoint boolean false
manila-common manila/configure_db boolean false
manila-common manila/dbconfig-install boolean false
manila-common manila/configure_rabbit boolean false
manila-common manila/configure_ksat boolean false
manila-api manila/configure_api-endpoint boolean false
EOF
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${PKGS[@]}"
    if [ "$created_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  else
    log "packages already installed"
  fi
  log "install done in $(elapsed "$t0") s"
}

# ---------------------------------------------------------------- database
db_url() { # D name
  if [ "$DB" = postgresql ]; then echo "postgresql+psycopg2://postgres@127.0.0.1:$PG_PORT/$2"
  else echo "sqlite:///$1/$2/$2.db"; fi
}
pg() { su postgres -s /bin/sh -c "$*"; }   # PostgreSQL refuses to run as root
pg_start() {
  local D=$1 t0; t0=$(now)
  [ "$DB" = postgresql ] || return 0
  pg "$PG_BIN/pg_ctl -D $D/pg -l $D/log/postgresql.log -w -t 30 \
      -o '-h 127.0.0.1 -p $PG_PORT -k $D/run/pg -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=32MB' start" >/dev/null
  head -1 "$D/pg/postmaster.pid" > "$D/run/postgresql.pid"
  log "postgresql up on 127.0.0.1:$PG_PORT (pid $(cat "$D/run/postgresql.pid")) in $(elapsed "$t0") s"
}
pg_init() {
  local D=$1
  mkdir -p "$D/pg" "$D/run/pg"; chown postgres:postgres "$D/pg" "$D/run/pg"; chmod 700 "$D/pg"
  chmod a+rx "$D" "$D/run"; chmod a+rwx "$D/log"
  pg "$PG_BIN/initdb -D $D/pg -A trust -U postgres -E UTF8 --no-sync" >/dev/null
  pg_start "$D"
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc 'CREATE DATABASE keystone' -c 'CREATE DATABASE manila' >/dev/null
}

# ---------------------------------------------------------------- setup
save_env() {
  local v
  : > "$1/peer.env"
  for v in KEYSTONE_PORT MANILA_PORT ADMIN_PASSWORD MANILA_SERVICE_PASSWORD MANILA_AUTH MANILA_SERVER \
           SHAREV2_URL_STYLE KEYSTONE_PROCESSES REGION DB PG_PORT SHARE_SERVICE SHARE_BACKEND CEPH_ENV NFS_ENV; do
    printf '%s=%q\n' "$v" "${!v}" >> "$1/peer.env"
  done
}
load_env() { if [ -f "$1/peer.env" ]; then . "$1/peer.env"; fi; }
write_keystone_conf() {
  local D=$1
  mkdir -p "$D/keystone/fernet-keys" "$D/keystone/credential-keys" "$D/log" "$D/run"
  chmod 700 "$D/keystone/fernet-keys" "$D/keystone/credential-keys"
  cat > "$D/keystone/keystone.conf" <<EOF
[DEFAULT]
log_dir = $D/log
log_file = keystone.log
[database]
connection = $(db_url "$D" keystone)
[token]
provider = fernet
expiration = 86400
[fernet_tokens]
key_repository = $D/keystone/fernet-keys
[fernet_receipts]
key_repository = $D/keystone/fernet-keys
[credential]
key_repository = $D/keystone/credential-keys
[identity]
# cheap bcrypt: password auth costs ~250 ms at the default 12 rounds; 4 rounds is ~2 ms
password_hash_rounds = 4
[cache]
# Without a cache every token validation runs ~170 SQL queries (token roles are recomputed ~12x per
# request): ~600 ms/validation on sqlite. In-process memory cache -> ~20 ms. Per process, so keep
# KEYSTONE_PROCESSES=1 if tests change role assignments (no cross-process invalidation).
enabled = true
backend = dogpile.cache.memory
[oslo_policy]
policy_dirs = /etc/keystone/policy.d
EOF
  write_keystone_uwsgi "$D"
}

write_keystone_uwsgi() {
  local D=$1
  cat > "$D/keystone/uwsgi.ini" <<EOF
[uwsgi]
plugins = python3
http-socket = 127.0.0.1:$KEYSTONE_PORT
wsgi-file = /usr/bin/keystone-wsgi-public
env = OS_KEYSTONE_CONFIG_FILES=$D/keystone/keystone.conf
master = true
processes = $KEYSTONE_PROCESSES
# threads MUST stay 1 with sqlite (SQLite objects created in a thread can only be used in that same thread)
threads = 1
lazy-apps = true
buffer-size = 65535
# uwsgi's http-socket closes the TCP connection after each response but answers HTTP/1.1 without
# "Connection: close": pooled clients (keystonemiddleware, keystoneauth, Go) then reuse a dead socket
# -> RemoteDisconnected / 503 from manila's authtoken. Tell clients explicitly (Debian's ini does too).
add-header = Connection: close
die-on-term = true
# eventlet/greenlet segfault in Py_Finalize when a worker exits: skip the teardown
skip-atexit-teardown = true
need-app = true
pidfile = $D/run/keystone.pid
logto = $D/log/keystone-uwsgi.log
chdir = $D/keystone
EOF
}

write_manila_conf() {
  local D=$1
  mkdir -p "$D/manila/lock" "$D/log" "$D/run"
  cat > "$D/manila/manila.conf" <<EOF
[DEFAULT]
auth_strategy = $MANILA_AUTH
osapi_share_listen = 127.0.0.1
osapi_share_listen_port = $MANILA_PORT
osapi_share_workers = 1
api_paste_config = /etc/manila/api-paste.ini
state_path = $D/manila
log_dir = $D/log
log_file = manila-api.log
enabled_share_protocols = NFS,CIFS,CEPHFS
# no RabbitMQ: the API only casts RPCs for share/snapshot/etc. operations, never for share types
transport_url = fake://
[database]
connection = $(db_url "$D" manila)
[keystone_authtoken]
www_authenticate_uri = http://127.0.0.1:$KEYSTONE_PORT
auth_url = http://127.0.0.1:$KEYSTONE_PORT
auth_type = password
project_domain_name = Default
user_domain_name = Default
project_name = service
username = manila
password = $MANILA_SERVICE_PASSWORD
region_name = $REGION
service_token_roles_required = true
[oslo_concurrency]
lock_path = $D/manila/lock
[oslo_messaging_notifications]
driver = noop
[oslo_policy]
policy_dirs = /etc/manila/policy.d
EOF
  if [ "$SHARE_SERVICE" = 1 ]; then write_share_conf "$D"; fi
  cat > "$D/manila/uwsgi.ini" <<EOF
[uwsgi]
plugins = python3
http-socket = 127.0.0.1:$MANILA_PORT
wsgi-file = /usr/bin/manila-wsgi
pyargv = --config-file $D/manila/manila.conf
master = true
processes = 1
threads = 1
lazy-apps = true
buffer-size = 65535
add-header = Connection: close
die-on-term = true
# eventlet/greenlet segfault in Py_Finalize when a worker exits: skip the teardown
skip-atexit-teardown = true
need-app = true
pidfile = $D/run/manila-api.pid
logto = $D/log/manila-uwsgi.log
chdir = $D/manila
EOF
}

# The CephFS backends of the share service, beside SHARE_BACKEND: hack/manila/manila_testbackend.py's
# CephFSTestDriver, native CephFS as Manila's CephFS driver serves it (one export location
# <monitors>:/volumes/_nogroup/<share id>, cephx access rules answered with keys). "cephfs" grants cephx
# to any ID but its own (admin, manila); "cephfs_nocephx" grants none (every cephx rule ends in error).
CEPHFS_BACKENDS="cephfs cephfs_nocephx"
share_backends() { echo "$SHARE_BACKEND" $CEPHFS_BACKENDS ${CEPH_ENV:+cephfs_native} ${CEPH_ENV:+${NFS_ENV:+cephfs_nfs}}; }

# write_share_conf: the scheduler and share service options, and the test backends' sections. The
# short periodic interval makes the share service report its capabilities every 5 s (default 60 s).
# CEPHFS is among enabled_share_protocols (Manila's default is NFS,CIFS) in write_manila_conf.
write_share_conf() {
  local D=$1
  awk -v b="$(share_backends | tr ' ' ',')" '/^log_file = / { print "log_file = manila-all.log"; next } {print} /^\[DEFAULT\]$/ {
      print "host = manila-peer"
      print "enabled_share_backends = " b
      print "periodic_interval = 5"
      print "periodic_fuzzy_delay = 0"
    }' "$D/manila/manila.conf" > "$D/manila/manila.conf.new"
  mv "$D/manila/manila.conf.new" "$D/manila/manila.conf"
  cat >> "$D/manila/manila.conf" <<EOF
[$SHARE_BACKEND]
share_backend_name = $SHARE_BACKEND
share_driver = manila_testbackend.NFSTestDriver
driver_handles_share_servers = False
[cephfs]
share_backend_name = cephfs
share_driver = manila_testbackend.CephFSTestDriver
driver_handles_share_servers = False
test_cephfs_monitors = 192.0.2.21:6789,192.0.2.22:6789
test_cephx_refused_ids = admin,manila
[cephfs_nocephx]
share_backend_name = cephfs_nocephx
share_driver = manila_testbackend.CephFSTestDriver
driver_handles_share_servers = False
test_cephx_support = False
EOF
  if [ -n "$CEPH_ENV" ]; then
    local CEPH_CONF CEPH_FS CEPH_MANILA_ID
    # shellcheck disable=SC1090
    . "$CEPH_ENV"
    cephfs_backend_conf cephfs_native CEPHFS >> "$D/manila/manila.conf"
    if [ -n "$NFS_ENV" ]; then
      local NFS_DIR
      # shellcheck disable=SC1090
      . "$NFS_ENV"
      # The helper writes an export file per share under ganesha_export_dir and adds it over D-Bus;
      # its export ids are kept in ganesha_db_path (the sqlite3 CLI). No RADOS store: the files are
      # the record. cephfs_nfs_cluster_id stays unset: the mgr `nfs` module needs an orchestrator.
      { cephfs_backend_conf cephfs_nfs NFS; cat <<EOF
cephfs_ganesha_server_ip = 127.0.0.1
cephfs_ganesha_server_is_remote = False
ganesha_config_dir = $NFS_DIR
ganesha_config_path = $NFS_DIR/ganesha.conf
ganesha_export_dir = $NFS_DIR/export.d
ganesha_db_path = $NFS_DIR/manila-ganesha.db
ganesha_rados_store_enable = False
EOF
      } >> "$D/manila/manila.conf"
    fi
  fi
}

# cephfs_backend_conf NAME PROTOCOL: the section of a backend of Manila's own CephFS driver with the
# protocol helper PROTOCOL (CEPHFS or NFS) on the Ceph of CEPH_ENV (already read).
cephfs_backend_conf() {
  cat <<EOF
[$1]
share_backend_name = $1
share_driver = manila.share.drivers.cephfs.driver.CephFSDriver
driver_handles_share_servers = False
cephfs_protocol_helper_type = $2
cephfs_conf_path = $CEPH_CONF
cephfs_auth_id = $CEPH_MANILA_ID
cephfs_cluster_name = ceph
cephfs_filesystem_name = $CEPH_FS
EOF
}

# Every eventlet-importing CLI (keystone-manage, manila-manage) prints a harmless 6-line
# "Exception ignored in: <function _removeHandlerRef ...> ... 'NoneType' object has no attribute
# 'getcurrent'" block at interpreter exit. Drop exactly that block, keep any real error output.
exit_noise() { awk '/^Exception ignored in: <function _removeHandlerRef/{skip=1} !skip{print} skip && /getcurrent/{skip=0}' >&2; }
ks() { keystone-manage --config-file "$1/keystone/keystone.conf" "${@:2}" 2> >(exit_noise); }

write_clouds_yaml() {
  local D=$1
  cat > "$D/clouds.yaml" <<EOF
clouds:
  openstack:
    auth:
      auth_url: http://127.0.0.1:$KEYSTONE_PORT/v3
      username: admin
      password: $ADMIN_PASSWORD
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: $REGION
    interface: public
    identity_api_version: 3
EOF
}

cmd_setup() {
  local D=${1:?DIR}; local t0; t0=$(now)
  mkdir -p "$D"; D=$(cd "$D" && pwd)
  local f
  for f in keystone manila-api postgresql; do
    if [ -e "$D/run/$f.pid" ] && kill -0 "$(cat "$D/run/$f.pid")" 2>/dev/null; then die "$f still running for $D; run stop first"; fi
  done
  rm -rf "$D/keystone" "$D/manila" "$D/log" "$D/run"
  rm -rf "$D/pg"
  mkdir -p "$D/log" "$D/run"
  if [ "$SHARE_SERVICE" = 1 ] && [ "$DB" != postgresql ]; then log "WARNING: SHARE_SERVICE=1 on sqlite: deleting shares fails"; fi
  save_env "$D"
  write_keystone_conf "$D"; write_manila_conf "$D"; write_clouds_yaml "$D"
  if [ -n "$SCHEMA_CACHE" ]; then schema_from_cache "$D"; else make_schema "$D"; fi
  if [ "$MANILA_AUTH" = keystone ]; then setup_keystone "$D"; fi
  log "setup done in $(elapsed "$t0") s"
}

# make_schema D: the empty databases, migrated by Keystone's and Manila's own tools (on PostgreSQL, in
# a new cluster, left running).
make_schema() {
  local D=$1
  if [ "$DB" = postgresql ]; then pg_init "$D"; fi
  log "keystone db_sync"
  ks "$D" db_sync
  # WAL: keystone leaks sqlite connections until GC; in the default rollback-journal mode a leaked
  # reader's SHARED lock makes other workers' commits fail after 5 s with "database is locked".
  if [ "$DB" = sqlite ]; then sqlite3 "$D/keystone/keystone.db" 'PRAGMA journal_mode=WAL;' >/dev/null; fi
  # Bootstrapped here, with a placeholder password and port, so that the schema cache holds it: the
  # bootstrap is seconds of a core importing Keystone; setup_keystone gives each world its own.
  log "keystone bootstrap (placeholders)"
  key_repository "$D/keystone/fernet-keys"   # bootstrap insists on one; setup_keystone makes the world's
  ks "$D" bootstrap --bootstrap-username admin --bootstrap-password "$BOOTSTRAP_PASSWORD" \
     --bootstrap-project-name admin --bootstrap-role-name admin \
     --bootstrap-service-name keystone --bootstrap-region-id "$REGION" \
     --bootstrap-admin-url "$BOOTSTRAP_URL" --bootstrap-public-url "$BOOTSTRAP_URL" --bootstrap-internal-url "$BOOTSTRAP_URL"
  setup_manila "$D"
}

# The bootstrap's placeholders: a password nobody uses and a port nothing listens on.
BOOTSTRAP_PASSWORD=bootstrap-placeholder
BOOTSTRAP_URL=http://127.0.0.1:1/v3

# schema_from_cache D: make_schema's result copied from SCHEMA_CACHE, made there first when missing.
# The migrations are the same every time for one DB kind and the same packages; each is two to five
# seconds of a core, and a test run sets up about twenty OpenStacks side by side on two cores. The
# lock lets parallel setups make it once.
schema_from_cache() {
  local D=$1 c
  c="$SCHEMA_CACHE/$DB-$REGION-$(dpkg-query -W -f='${Version}-' keystone python3-manila | tr -c 'A-Za-z0-9.+-' _)v2"
  mkdir -p "$SCHEMA_CACHE"
  exec 9>"$c.lock"
  flock 9
  if [ ! -f "$c/.done" ]; then
    make_schema "$D"
    rm -rf "$c" "$c.tmp"; mkdir -p "$c.tmp"
    if [ "$DB" = postgresql ]; then
      pg "$PG_BIN/pg_ctl -D $D/pg -m fast -w stop" >/dev/null
      cp -a "$D/pg" "$c.tmp/pg"
    else
      cp "$D/keystone/keystone.db" "$D/manila/manila.db" "$c.tmp/"
    fi
    touch "$c.tmp/.done"; mv "$c.tmp" "$c"
    log "migrated schema kept in $c"
  else
    log "migrated schema from $c"
  fi
  if [ "$DB" = postgresql ]; then
    [ -d "$D/pg" ] || { cp -a "$c/pg" "$D/pg"; mkdir -p "$D/run/pg"; chown postgres:postgres "$D/run/pg"; chmod a+rx "$D" "$D/run"; chmod a+rwx "$D/log"; }
    pg_start "$D"
  elif [ ! -f "$D/keystone/keystone.db" ]; then
    cp "$c/keystone.db" "$D/keystone/"; cp "$c/manila.db" "$D/manila/"
  fi
  flock -u 9; exec 9>&-
}

# key_repository DIR: what `keystone-manage fernet_setup` (and credential_setup) leave: a staged key 0
# and a primary key 1, each 32 random bytes in URL-safe base64, readable by the owner alone. Written
# here: each keystone-manage run is two seconds of a core importing Keystone.
key_repository() {
  local k
  for k in 0 1; do
    (umask 077; head -c 32 /dev/urandom | base64 -w0 | tr '+/' '-_' > "$1/$k")
  done
}

setup_keystone() {
  local D=$1 hash sql
  log "keystone keys / admin password and endpoints"
  key_repository "$D/keystone/fernet-keys"
  key_repository "$D/keystone/credential-keys"
  # The bootstrapped database (make_schema) gets this world's admin password (hashed as Keystone does,
  # bcrypt at its password_hash_rounds) and Keystone's own endpoints on this world's port.
  hash=$(ADMIN_PASSWORD="$ADMIN_PASSWORD" $PY -c 'import os, passlib.hash; print(passlib.hash.bcrypt.using(rounds=4).hash(os.environ["ADMIN_PASSWORD"]))')
  case "$hash" in '$2'*) ;; *) die "hashing the admin password failed";; esac
  sql="UPDATE password SET password_hash = '$hash' WHERE local_user_id = (SELECT id FROM local_user WHERE name = 'admin');
       UPDATE endpoint SET url = 'http://127.0.0.1:$KEYSTONE_PORT/v3' WHERE url = '$BOOTSTRAP_URL';"
  if [ "$DB" = postgresql ]; then
    psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d keystone -v ON_ERROR_STOP=1 -qc "$sql" >/dev/null
  else
    sqlite3 -bail "$D/keystone/keystone.db" "$sql"
  fi
  # catalog entries for manila need keystone running: done by the first `start` (register_catalog)
  : > "$D/.needs-catalog"
}

setup_manila() {
  local D=$1
  if [ "$DB" = postgresql ]; then
    log "manila-manage db sync (real alembic migrations, postgresql)"
    manila-manage --config-file "$D/manila/manila.conf" db sync 2> >(exit_noise) >/dev/null
    return
  fi
  # manila's alembic migrations do NOT run on sqlite (ALTER TABLE ... ALTER COLUMN), so
  # `manila-manage db sync` fails there. Do what manila's own unit tests do (manila/test.py):
  # models.BASE.metadata.create_all() + alembic stamp head.
  log "manila schema (sqlite: create_all + stamp head)"
  $PY - "$D/manila/manila.conf" <<'PYEOF' 2> >(exit_noise)
import sys
from oslo_config import cfg
from manila.common import config  # noqa: registers options
from manila.db.sqlalchemy import api as db_api, models
from manila.db import migration
cfg.CONF(['--config-file', sys.argv[1]], project='manila')
if not migration.version():
    models.BASE.metadata.create_all(db_api.get_engine())
    migration.stamp('head')
PYEOF
  sqlite3 "$D/manila/manila.db" 'PRAGMA journal_mode=WAL;' >/dev/null
}

# --------------------------------------------------------------- start/stop
# wait_http URL TIMEOUT_S [PID: give up early if it dies]: until URL answers. The pause between tries
# doubles from 0.05 s to 0.4 s: a Python service takes seconds to start, longer on a loaded machine,
# and a curl every 0.05 s for all of it (each a process) took a tenth of a core from the services
# starting (make test ran 2,155 curls and 6,334 sleeps).
wait_http() {
  local deadline=$(( $(date +%s) + $2 )) pause=0.05
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if curl -sf -o /dev/null -m 2 "$1"; then return 0; fi
    if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then return 1; fi
    sleep "$pause"
    case $pause in 0.05) pause=0.1 ;; 0.1) pause=0.2 ;; *) pause=0.4 ;; esac
  done
  return 1
}

# start_failed NAME PID LOG...: the end of each log, then why the start failed: the process exited,
# or it did not answer in time.
start_failed() {
  local name=$1 pid=$2 f why="did not answer within $SERVICE_START_TIMEOUT s"; shift 2
  kill -0 "$pid" 2>/dev/null || why="exited before it answered"
  for f in "$@"; do
    [ -f "$f" ] && { log "the end of $f:"; tail -20 "$f" >&2; }
  done
  die "$name $why"
}

token_for() { # D -> prints "token project_id"
  local D=$1
  curl -s -D - -o "$D/run/token.json" -X POST "http://127.0.0.1:$KEYSTONE_PORT/v3/auth/tokens" \
    -H 'Content-Type: application/json' \
    -d "{\"auth\":{\"identity\":{\"methods\":[\"password\"],\"password\":{\"user\":{\"name\":\"admin\",\"domain\":{\"id\":\"default\"},\"password\":\"$ADMIN_PASSWORD\"}}},\"scope\":{\"project\":{\"name\":\"admin\",\"domain\":{\"id\":\"default\"}}}}}" \
    | awk -F': ' 'tolower($1)=="x-subject-token"{gsub("\r","",$2); print $2}'
}

ksapi() { # D token METHOD path [json]
  local D=$1 T=$2 M=$3 P=$4 B=${5:-}
  if [ -n "$B" ]; then
    curl -sf -X "$M" "http://127.0.0.1:$KEYSTONE_PORT/v3$P" -H "X-Auth-Token: $T" -H 'Content-Type: application/json' -d "$B"
  else
    curl -sf -X "$M" "http://127.0.0.1:$KEYSTONE_PORT/v3$P" -H "X-Auth-Token: $T"
  fi
}
jget() { $PY -c "import sys,json; d=json.load(sys.stdin); print(eval('d'+sys.argv[1]))" "$1"; }

register_catalog() { # raw Keystone v3 API (no openstack CLI needed, ~10x faster)
  local D=$1 T pid sid uid rid svc url iface
  T=$(token_for "$D")
  [ -n "$T" ] || die "could not get admin token"
  rid=$(ksapi "$D" "$T" GET "/roles?name=admin" | jget "['roles'][0]['id']")
  pid=$(ksapi "$D" "$T" POST /projects '{"project":{"name":"service","domain_id":"default"}}' | jget "['project']['id']")
  uid=$(ksapi "$D" "$T" POST /users "{\"user\":{\"name\":\"manila\",\"domain_id\":\"default\",\"password\":\"$MANILA_SERVICE_PASSWORD\"}}" | jget "['user']['id']")
  ksapi "$D" "$T" PUT "/projects/$pid/users/$uid/roles/$rid" >/dev/null
  for svc in "manila share v1/%(project_id)s" "manilav2 sharev2 v2"; do
    set -- $svc
    url="http://127.0.0.1:$MANILA_PORT/$3"
    if [ "$2" = sharev2 ] && [ "$SHAREV2_URL_STYLE" = project ]; then url="http://127.0.0.1:$MANILA_PORT/v2/%(project_id)s"; fi
    sid=$(ksapi "$D" "$T" POST /services "{\"service\":{\"name\":\"$1\",\"type\":\"$2\",\"enabled\":true}}" | jget "['service']['id']")
    for iface in public internal admin; do
      ksapi "$D" "$T" POST /endpoints "{\"endpoint\":{\"service_id\":\"$sid\",\"interface\":\"$iface\",\"region_id\":\"$REGION\",\"url\":\"$url\",\"enabled\":true}}" >/dev/null
    done
  done
  rm -f "$D/.needs-catalog"
  log "catalog: share -> http://127.0.0.1:$MANILA_PORT/v1/%(project_id)s, sharev2 -> $url"
}

port_busy() { curl -s -o /dev/null -m 1 "http://127.0.0.1:$1/"; }

start_keystone() {
  local D=$1 t0; t0=$(now)
  port_busy "$KEYSTONE_PORT" && die "127.0.0.1:$KEYSTONE_PORT already in use (stale keystone?)"
  setsid uwsgi --ini "$D/keystone/uwsgi.ini" >/dev/null 2>&1 </dev/null &
  wait_http "http://127.0.0.1:$KEYSTONE_PORT/v3" "$SERVICE_START_TIMEOUT" $! || start_failed keystone $! "$D"/log/keystone*.log
  log "keystone up on 127.0.0.1:$KEYSTONE_PORT (pid $(cat "$D/run/keystone.pid")) in $(elapsed "$t0") s"
}

start_manila() {
  local D=$1 t0 log_offset=0; t0=$(now)
  port_busy "$MANILA_PORT" && die "127.0.0.1:$MANILA_PORT already in use (stale manila-api?)"
  if [ "$SHARE_SERVICE" = 1 ]; then
    # API + scheduler + share service in one process (fake:// RPC); same PID file as the API alone,
    # so stop-manila and stop work unchanged.
    log_offset=$(stat -c %s "$D/log/manila-all.log" 2>/dev/null || echo 0)
    # With the Ganesha of NFS_ENV, in its mount namespace: its /run/dbus is the bus the NFS helper
    # (dbus-send through sudo, which drops DBUS_SYSTEM_BUS_ADDRESS) must reach.
    local in_ns=()
    if [ -n "$CEPH_ENV" ] && [ -n "$NFS_ENV" ]; then
      in_ns=(nsenter -t "$(. "$NFS_ENV" && echo "$NFS_NS_PID")" -m --)
    fi
    PYTHONPATH="$HACK_DIR/manila" PYTHONDONTWRITEBYTECODE=1 setsid "${in_ns[@]}" "$PY" "$HACK_DIR/manila/manila_all.py" --config-file "$D/manila/manila.conf" \
      >"$D/log/manila-all.stdout" 2>&1 </dev/null &
    echo $! > "$D/run/manila-api.pid"
  elif [ "$MANILA_SERVER" = uwsgi ]; then
    setsid uwsgi --ini "$D/manila/uwsgi.ini" >/dev/null 2>&1 </dev/null &
  else
    # eventlet server in one process (manila_all.py --api-only: Debian's manila-api adds a parent
    # that polls its worker 100 times a second)
    PYTHONDONTWRITEBYTECODE=1 setsid "$PY" "$HACK_DIR/manila/manila_all.py" --api-only --config-file "$D/manila/manila.conf" \
      >"$D/log/manila-api.stdout" 2>&1 </dev/null &
    echo $! > "$D/run/manila-api.pid"
  fi
  wait_http "http://127.0.0.1:$MANILA_PORT/" "$SERVICE_START_TIMEOUT" $! || start_failed manila-api $! "$D"/log/manila*
  log "manila-api ($MANILA_SERVER, auth=$MANILA_AUTH) up on 127.0.0.1:$MANILA_PORT (pid $(cat "$D/run/manila-api.pid")) in $(elapsed "$t0") s"
  if [ "$SHARE_SERVICE" = 1 ]; then wait_pool "$D" "$log_offset"; fi
}

# wait_pool D LOG_OFFSET: until every test backend's share service has initialised its driver (its
# "Finished initialization of driver" line in the log past LOG_OFFSET, the log's size before this
# start) and the scheduler lists SHARE_BACKEND's pool, i.e. a share can be scheduled. A share service
# publishes its capabilities to the scheduler right after that line. Only SHARE_BACKEND's pool is
# awaited: Manila's pool list (GET /scheduler-stats/pools) answers from the scheduler's cache, built
# at the first such request and refreshed only when a share is scheduled, so a backend that had not
# yet reported then stays out of the list (not out of scheduling) until the first share is created;
# waiting for the drivers first makes that unlikely for SHARE_BACKEND too.
wait_pool() {
  local D=$1 off=${2:-0} t0 i b missing H=(-H "X-Auth-Token: admin:admin"); t0=$(now)
  if [ "$MANILA_AUTH" = keystone ]; then H=(-H "X-Auth-Token: $(token_for "$D")"); fi
  # A deadline, not a count of tries: on a loaded machine each try takes longer.
  local deadline=$(( $(date +%s) + ${POOL_TIMEOUT:-300} ))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    missing=
    for b in $(share_backends); do
      tail -c +"$((off + 1))" "$D/log/manila-all.log" 2>/dev/null | grep -q "Finished initialization of driver: '[A-Za-z]*@[^@']*@$b'" ||
        missing="$missing $b"
    done
    if [ -z "$missing" ] &&
       curl -sf -m 5 "${H[@]}" "$(manila_base)/scheduler-stats/pools" 2>/dev/null | grep -q "@$SHARE_BACKEND#"; then
      log "share backends $(share_backends) initialised, $SHARE_BACKEND ready for the scheduler in $(elapsed "$t0") s"
      return 0
    fi
    kill -0 "$(cat "$D/run/manila-api.pid")" 2>/dev/null || die "manila exited; see $D/log/manila-all.*"
    sleep 0.25 # the drivers initialise in seconds; each try is a tail, greps and a curl
  done
  log "the end of $D/log/manila-all.log:"; tail -30 "$D/log/manila-all.log" >&2 || true
  die "share backends not ready in ${POOL_TIMEOUT:-300} s (drivers not initialised:${missing:- none}); see $D/log/manila-all.log"
}

cmd_start() {
  local D=${1:?DIR}; D=$(cd "$D" && pwd)
  [ -f "$D/keystone/keystone.conf" ] || die "run setup $D first"
  # re-render manila.conf + uwsgi inis so MANILA_AUTH/MANILA_SERVER/ports given now take effect
  # (DBs, keys and keystone.conf untouched; the catalog keeps the ports used at first start)
  write_keystone_uwsgi "$D"; write_manila_conf "$D"
  if [ "$DB" = postgresql ] && ! { [ -f "$D/run/postgresql.pid" ] && kill -0 "$(cat "$D/run/postgresql.pid")" 2>/dev/null; }; then
    pg_start "$D"
  fi
  if [ "$MANILA_AUTH" = keystone ]; then
    start_keystone "$D"
    if [ -e "$D/.needs-catalog" ]; then register_catalog "$D"; fi
  fi
  start_manila "$D"
}

# A process that leads its own group (setsid: uwsgi's master) is stopped with its group: a master
# killed after the 5 s grace would otherwise leave its workers holding the port, and the next start
# on that port would fail.
stop_pidfile() { # name pidfile [signal]
  local p t; [ -f "$2" ] || return 0
  p=$(cat "$2"); t=$p
  if kill -0 "$p" 2>/dev/null; then
    [ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$p" ] && t=-$p
    kill -"${3:-TERM}" -- "$t"
    for _ in $(seq 1 100); do kill -0 -- "$t" 2>/dev/null || break; sleep 0.05; done
    kill -0 -- "$t" 2>/dev/null && kill -KILL -- "$t" 2>/dev/null || true
    rm -f "$2"
    log "stopped $1 (pid $p)"
  fi
  rm -f "$2"
}

cmd_stop() {
  local D=${1:?DIR}
  stop_pidfile manila-api "$D/run/manila-api.pid"
  stop_pidfile keystone "$D/run/keystone.pid"
  stop_pidfile postgresql "$D/run/postgresql.pid" INT   # SIGINT = PG "fast" shutdown
}

rss_tree_kb() { # pid -> total RSS of pid + children (kB)
  local p=$1 kids; kids=$(pgrep -P "$p" || true)
  ps -o rss= -p "$p" ${kids:+$(printf ' -p %s' $kids)} 2>/dev/null | awk '{s+=$1} END{print s+0}'
}

cmd_status() {
  local D=${1:?DIR} n p
  for n in $([ "$DB" = postgresql ] && echo postgresql) keystone manila-api; do
    if [ -f "$D/run/$n.pid" ] && p=$(cat "$D/run/$n.pid") && kill -0 "$p" 2>/dev/null; then
      echo "$n: running pid $p rss_total_kb $(rss_tree_kb "$p")"
    else echo "$n: stopped"; fi
  done
}

# ---------------------------------------------------------------- seed
MV=${MANILA_MICROVERSION:-2.65}
manila_base() { # v2 base URL without project id (Zed accepts it at any microversion; /v2/<hex project id>/ works too)
  echo "http://127.0.0.1:$MANILA_PORT/v2"
}
cmd_seed() {
  local D=${1:?DIR}; D=$(cd "$D" && pwd)
  local T="" H=() B; B=$(manila_base)
  if [ "$MANILA_AUTH" = keystone ]; then
    T=$(token_for "$D"); H=(-H "X-Auth-Token: $T")
  else
    # noauth middleware: X-Auth-Token "user:project" (or X-Auth-User/X-Auth-Project-Id) — admin context
    H=(-H "X-Auth-Token: admin:admin")
  fi
  local spec name pub
  for spec in "default:true" "CephFS_Gold:true" "nfs_standard:true" "private_Type:false" "UPPER_CASE:true"; do
    name=${spec%%:*}; pub=${spec##*:}
    curl -sf -o /dev/null -X POST "$B/types" "${H[@]}" \
      -H "X-OpenStack-Manila-API-Version: $MV" -H 'Content-Type: application/json' \
      -d "{\"share_type\":{\"name\":\"$name\",\"share_type_access:is_public\":$pub,\"extra_specs\":{\"driver_handles_share_servers\":false,\"snapshot_support\":true}}}" \
      && log "created share type $name (public=$pub)" || log "share type $name: create failed (exists?)"
  done
}

# ---------------------------------------------------------------- bench
stats() { sort -n | awk '{a[NR]=$1*1000} END{if(NR==0){print "n=0";exit} p=int(NR*0.9); if(p<1)p=1; m=int((NR+1)/2); printf "n=%d min=%.1fms median=%.1fms p90=%.1fms max=%.1fms\n", NR, a[1], a[m], a[p], a[NR]}'; }
cmd_bench() {
  local D=${1:?DIR} N=${BENCH_N:-50} T H=() i urls=()
  D=$(cd "$D" && pwd)
  if [ "$MANILA_AUTH" = keystone ]; then
    printf 'keystone POST /v3/auth/tokens (password, x20): '
    for i in $(seq 1 20); do
      curl -s -o /dev/null -w '%{time_total}\n' -X POST "http://127.0.0.1:$KEYSTONE_PORT/v3/auth/tokens" -H 'Content-Type: application/json' \
        -d "{\"auth\":{\"identity\":{\"methods\":[\"password\"],\"password\":{\"user\":{\"name\":\"admin\",\"domain\":{\"id\":\"default\"},\"password\":\"$ADMIN_PASSWORD\"}}},\"scope\":{\"project\":{\"name\":\"admin\",\"domain\":{\"id\":\"default\"}}}}}"
    done | stats
    T=$(token_for "$D"); H=(-H "X-Auth-Token: $T")
    printf 'keystone GET /v3/auth/tokens (validate, x%d): ' "$N"
    for i in $(seq 1 "$N"); do urls+=(-o /dev/null "http://127.0.0.1:$KEYSTONE_PORT/v3/auth/tokens"); done
    curl -s -w '%{time_total}\n' "${H[@]}" -H "X-Subject-Token: $T" "${urls[@]}" | stats
  else
    H=(-H "X-Auth-Token: admin:admin")
  fi
  urls=(); for i in $(seq 1 "$N"); do urls+=(-o /dev/null "http://127.0.0.1:$MANILA_PORT/v2/types?is_public=all"); done
  curl -s -o /dev/null "${H[@]}" "http://127.0.0.1:$MANILA_PORT/v2/types" >/dev/null   # warm (token cache)
  printf 'manila GET /v2/types?is_public=all (one curl, keep-alive, x%d): ' "$N"
  curl -s -w '%{time_total}\n' "${H[@]}" -H "X-OpenStack-Manila-API-Version: $MV" "${urls[@]}" | stats
  cmd_status "$D"
}

case "${1:-}" in
  setup|install|all|'') ;;
  *) [ -n "${2:-}" ] && load_env "$2" ;;
esac
case "${1:-}" in
  install) cmd_install ;;
  start-keystone) D=$(cd "${2:?DIR}" && pwd); write_keystone_uwsgi "$D"
                  # fault tests shorten the token lifetime to outlast a token; unset restores the default
                  sed -i "s/^expiration = .*/expiration = ${KEYSTONE_TOKEN_EXPIRATION:-86400}/" "$D/keystone/keystone.conf"
                  start_keystone "$D" ;;
  stop-keystone)  stop_pidfile keystone "${2:?DIR}/run/keystone.pid" ;;
  start-manila)   D=$(cd "${2:?DIR}" && pwd); write_manila_conf "$D"; start_manila "$D" ;;
  stop-manila)    stop_pidfile manila-api "${2:?DIR}/run/manila-api.pid" ;;
  register-share-host) D=$(cd "${2:?DIR}" && pwd)
                  PYTHONDONTWRITEBYTECODE=1 "$PY" "$HACK_DIR/manila/register_share_host.py" "$D/manila/manila.conf" "${3:?HOST}" "${4:?ZONE}" 2> >(exit_noise) ;;
  setup)   cmd_setup "${2:-}" ;;
  start)   cmd_start "${2:-}" ;;
  stop)    cmd_stop "${2:-}" ;;
  status)  cmd_status "${2:-}" ;;
  seed)    cmd_seed "${2:-}" ;;
  bench)   cmd_bench "${2:-}" ;;
  all)     cmd_install; cmd_setup "${2:?DIR}"; cmd_start "$2"; cmd_seed "$2"; cmd_status "$2" ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
