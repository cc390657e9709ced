import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The command certify runs when no --client is given: the reference client from the bundle `client.cjs` beside this
 * module when `npm run build` wrote it (a start loads a few files instead of ~150 modules), else
 * `main.js client` (the same verbs, loaded module by module). Both take `client <verb> …` and exit alike.
 */
export function referenceCommand(cliDir: string = dirname(fileURLToPath(import.meta.url))): string {
  const bundle = join(cliDir, 'client.cjs');
  return [process.execPath, existsSync(bundle) ? bundle : join(cliDir, 'main.js'), 'client'].map(quote).join(' ');
}
