// Preloaded by scripts/with-node24.sh (NODE_OPTIONS --require, so child processes and worker threads get it too):
// better-sqlite3 loads its Node 24 build from .node24/ while node_modules keeps the Node 20 one, so a Node 24 run
// never changes what other runs on the same node_modules load.
const target = process.env.JOBPROOF_BETTER_SQLITE3_NODE;
if (target) {
  const dlopen = process.dlopen;
  process.dlopen = function (module, filename, ...rest) {
    return dlopen.call(this, module, /better_sqlite3\.node$/.test(filename) ? target : filename, ...rest);
  };
}
