/**
 * pg is an optional peer: the bundled client (dist/cli/client.cjs, which leaves pg outside the bundle) copied where
 * no node_modules can be found is a client installed without pg. Asked for a PostgreSQL store, every verb family
 * refuses with how to fix it (exit 2), not a MODULE_NOT_FOUND stack. Run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const DIST_CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli');
let dir: string;

beforeAll(() => {
  if (!existsSync(join(DIST_CLI, 'client.cjs'))) throw new Error('dist/cli/client.cjs is missing: run `npm run build` first');
  dir = mkdtempSync(join(tmpdir(), 'jp-no-pg-'));
  cpSync(join(DIST_CLI, 'client.cjs'), join(dir, 'client.cjs'));
  cpSync(join(DIST_CLI, 'client-chunks'), join(dir, 'client-chunks'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ['show, db from JOBPROOF_CLIENT_DB', ['client', 'show', 'op_1'], true],
  ['show, db from --db', ['client', '--db', 'postgres://u@127.0.0.1:1/db', 'show', 'op_1'], false],
  ['task show', ['client', 'task', 'show', 't_1'], true],
])('without pg installed, %s is a usage error that says to install it', (_name, args, viaEnv) => {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, JOBPROOF_STATE: join(dir, 'state') };
  if (viaEnv) env.JOBPROOF_CLIENT_DB = 'postgres://u@127.0.0.1:1/db';
  const r = spawnSync(process.execPath, [join(dir, 'client.cjs'), ...args], { env, encoding: 'utf8', timeout: 20_000 });
  expect(r.stderr).toMatch(/needs node-postgres, an optional peer dependency of jobproof: run `npm install pg`/);
  expect(r.stderr).not.toMatch(/MODULE_NOT_FOUND|unexpected error/);
  expect(r.status).toBe(2);
});
