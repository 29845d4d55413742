# lib.sh — what the test world's install and build scripts share; sourced, never run. The caller
# defines log and die.

# install_packages PKG...: Debian's packages, when any is missing (root only). No package script may
# start a daemon: there is no systemd here, and rpcbind's would listen on every interface.
install_packages() {
  if [ "$(dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null | grep -c 'install ok installed')" -eq "$#" ]; then
    log "packages already installed"; return 0
  fi
  [ "$(id -u)" = 0 ] || die "install needs root"
  local created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; created_policy=1
  fi
  apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
  if [ "$created_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
}

# checked_archive ARCHIVE: prints ARCHIVE's sha256 after checking it against SHA256SUMS beside it;
# dies when it is missing, unlisted or different.
checked_archive() {
  local a=$1 sums want got
  sums=$(dirname "$a")/SHA256SUMS
  [ -r "$a" ] || die "no archive $a"
  want=$(awk -v f="$(basename "$a")" '$2 == f || $2 == "*"f {print $1}' "$sums" 2>/dev/null)
  [ -n "$want" ] || die "$(basename "$a") is not listed in $sums"
  got=$(sha256sum "$a" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "sha256 mismatch for $a: $got, SHA256SUMS says $want"
  echo "$got"
}

# unpack ARCHIVE DIR: ARCHIVE's one folder, unpacked afresh under DIR; prints its path.
unpack() {
  local a=$1 d=$2 name
  name=$(basename "$a" .tar.xz)
  rm -rf "${d:?}/$name"; mkdir -p "$d"
  tar -xJf "$a" -C "$d"
  echo "$d/$name"
}
