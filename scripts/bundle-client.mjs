// One CommonJS file for `jobproof client …` (docs/decisions/0XX-bundled-client-start.md): certify starts the client
// ~90 times per catalog, and a start from one file skips resolving and compiling ~150 ESM modules. Run by
// `npm run build` after tsc, from the compiled dist/cli/client-main.js.
import { build } from 'rolldown';

await build({
  input: 'dist/cli/client-main.js',
  platform: 'node',
  // Native and optional: better-sqlite3 loads its .node file relative to itself; pg is required only by a
  // postgres:// store (store/pg-pool.ts).
  external: ['better-sqlite3', 'pg'],
  output: { file: 'dist/cli/client.cjs', format: 'cjs', codeSplitting: false },
  logLevel: 'warn',
});
