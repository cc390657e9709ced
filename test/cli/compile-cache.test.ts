/**
 * The CLI and the bundled client keep their compiled code in Node's compile cache where Node has one (≥ 22.1): each
 * start then skips compiling what it loads. On Node 20 nothing is written. Runs `dist/` (`npm run build` first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const DIST_CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli');
const nodeHasCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Run an entry with its own temporary directory (where Node's default cache lives) and no cache settings inherited. */
function start(entry: string, args: string[]): { status: number | null; cache: string } {
  const tmp = mkdtempSync(join(tmpdir(), 'jp-compile-cache-'));
  dirs.push(tmp);
  const { NODE_COMPILE_CACHE: _dir, NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    TMPDIR: tmp,
    JOBPROOF_STATE: join(tmp, 'state'),
    JOBPROOF_WORKER_ID: 'w',
    JOBPROOF_PROVIDER_URL: 'http://127.0.0.1:9',
    JOBPROOF_TOKEN: 'dev-token',
  };
  const r = spawnSync(process.execPath, [join(DIST_CLI, entry), ...args], { env, encoding: 'utf8' });
  return { status: r.status, cache: join(tmp, 'node-compile-cache') };
}

const cached = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).length : 0);

describe('compile cache', () => {
  it.each([
    ['client.cjs', ['client', 'show', 'no-such-operation'], 2],
    ['main.js', ['scenarios'], 0],
  ])('%s %s leaves compiled code in the cache where Node has one', (entry, args, exit) => {
    const r = start(entry, args);
    expect(r.status).toBe(exit);
    if (nodeHasCache) expect(cached(r.cache)).toBeGreaterThan(0);
    else expect(existsSync(r.cache)).toBe(false);
  });
});
