// The reference client's process face as CommonJS built by rolldown (docs/decisions/024-bundled-client-start.md):
// certify starts the client ~90 times per catalog, and a start from a bundle skips resolving and compiling ~150 ESM
// modules. Entry dist/cli/client.cjs; what a verb loads lazily (the client and its worker, zod, commander, the task
// client) goes to chunks in dist/cli/client-chunks/, required when first used, so `show` compiles only what it runs.
// Run by `npm run build` after tsc, from the compiled dist/cli/client-main.js.
import { build } from 'rolldown';

/**
 * better-sqlite3's JavaScript goes into the bundle too (its 13 files, resolved and compiled one by one, cost ~17 ms
 * of CPU a start); its native addon stays where npm put it. The package finds the addon through `bindings`, which
 * searches from its caller's file — inside a bundle, ours — so that one call is pointed at the addon by name. A
 * better-sqlite3 that no longer makes that call fails this build, not a client run.
 */
const betterSqliteAddon = {
  name: 'better-sqlite3-addon',
  transform(code, id) {
    if (!/better-sqlite3[\\/]lib[\\/]database\.js$/.test(id)) return null;
    const call = "require('bindings')('better_sqlite3.node')";
    if (!code.includes(call)) throw new Error(`${id} no longer calls ${call}: update scripts/bundle-client.mjs`);
    return code.replace(call, "require(require.resolve('better-sqlite3/build/Release/better_sqlite3.node'))");
  },
};

await build({
  input: { client: 'dist/cli/client-main.js' },
  platform: 'node',
  // pg is required only by a postgres:// store (store/pg-pool.ts), from node_modules as any optional package.
  external: ['pg'],
  plugins: [betterSqliteAddon],
  output: {
    dir: 'dist/cli',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'client-chunks/[name]-[hash].cjs',
  },
  logLevel: 'warn',
});
