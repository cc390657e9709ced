#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for CI: `source .ci/pg-cluster.sh` installs the server from Debian's packages when
# its binaries are missing, starts initdb + pg_ctl on a temporary directory and a free loopback port, exports
# JOBPROOF_TEST_PG, and stops and removes the cluster when the calling shell exits.
set -euo pipefail
find_initdb() { command -v initdb || ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(find_initdb)" ]; then
  echo "PostgreSQL server binaries missing: installing Debian's postgresql package"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN="$(dirname "$(find_initdb)")"
PG_DIR="$(mktemp -d /tmp/jobproof-ci-pg.XXXXXX)"
PG_PORT="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
# initdb refuses to run as root: as root, the cluster belongs to the postgres user the package created.
pg_as() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres: "$PG_DIR"
pg_as "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U jobproof -E UTF8 --no-sync >/dev/null
pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
  -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
pg_stop() { pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$PG_DIR"; }
trap pg_stop EXIT
export JOBPROOF_TEST_PG="postgres://jobproof@127.0.0.1:$PG_PORT/postgres"
echo "PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') for the tests at $JOBPROOF_TEST_PG"
