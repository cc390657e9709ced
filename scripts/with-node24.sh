#!/usr/bin/env sh
# Run a command under Node.js 24 (scripts/node24.sh) with better-sqlite3 built for it, then put the Node 20 build
# back, so the same node_modules serves both. Usage: sh scripts/with-node24.sh npm test
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
n24="$(sh "$root/scripts/node24.sh")"
addon="$root/node_modules/better-sqlite3/build/Release/better_sqlite3.node"
saved="$root/.node24/better_sqlite3.node20"
cp "$addon" "$saved"
restore() { cp "$saved" "$addon"; }
trap restore EXIT INT TERM
# npm's scripts find `node` on PATH, so everything below (node-gyp included) runs on Node 24.
export PATH="$n24/bin:$PATH"
echo "with-node24: $(node --version) ($n24)" >&2
# The Node 24 build is kept beside the Node 20 one, keyed by both versions: built once per machine.
built="$root/.node24/better_sqlite3-$(node -p "require('$root/node_modules/better-sqlite3/package.json').version")-$(node -p process.versions.modules).node"
if [ -f "$built" ]; then
  cp "$built" "$addon"
else
  (cd "$root" && npm rebuild better-sqlite3 --nodedir="$n24" >&2)
  cp "$addon" "$built"
fi
"$@"
