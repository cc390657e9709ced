// The reference client's process face as CommonJS built by rolldown (docs/decisions/0XX-bundled-client-start.md):
// certify starts the client ~90 times per catalog, and a start from a bundle skips resolving and compiling ~150 ESM
// modules. Entry dist/cli/client.cjs; what a verb loads lazily (the client and its worker, zod, commander, the task
// client) goes to chunks in dist/cli/client-chunks/, required when first used, so `show` compiles only what it runs.
// Run by `npm run build` after tsc, from the compiled dist/cli/client-main.js.
import { build } from 'rolldown';

await build({
  input: { client: 'dist/cli/client-main.js' },
  platform: 'node',
  // Native and optional: better-sqlite3 loads its .node file relative to itself; pg is required only by a
  // postgres:// store (store/pg-pool.ts).
  external: ['better-sqlite3', 'pg'],
  output: {
    dir: 'dist/cli',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'client-chunks/[name]-[hash].cjs',
  },
  logLevel: 'warn',
});
