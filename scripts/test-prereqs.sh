#!/usr/bin/env sh
# The system packages the test suite drives for real: Debian's chromium (dashboard and HTML certificate tests, via
# playwright-core) and PostgreSQL's server binaries (the PostgreSQL store's tests start a throw-away cluster).
# Installed from Debian's packages when missing, so `npm install && npm test` passes on a fresh machine.
set -eu
need=""
[ -x "${JOBPROOF_CHROMIUM:-/usr/bin/chromium}" ] || need="$need chromium"
if [ -z "${JOBPROOF_TEST_PG:-}" ] && ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  need="$need postgresql"
fi
[ -z "$need" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "jobproof tests need:$need (not a Debian machine: install them yourself, or set JOBPROOF_CHROMIUM / JOBPROOF_TEST_PG)" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "jobproof tests: installing Debian packages:$need"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
