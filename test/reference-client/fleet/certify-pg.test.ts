import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { pgUrl } from '../../helpers/pg.js';

/**
 * `certify` (process runner) with the reference client's store in PostgreSQL: JOBPROOF_CLIENT_DB reaches every
 * `client` process the harness starts, each scenario's state directory gets its own schema. A subset of the
 * catalog here (the whole catalog was run by hand: see docs/decisions/015-postgresql-store.md and the issue's
 * closing note).
 */
const url = pgUrl();
const CLI = join(import.meta.dirname, '..', '..', '..', 'dist', 'cli', 'main.js');
const SCENARIOS = ['lost-create-response', 'stale-lease', 'cancel-race'];

async function schemas(): Promise<string[]> {
  const c = new pg.Client({ connectionString: url! });
  await c.connect();
  try {
    return (await c.query<{ n: string }>("SELECT nspname AS n FROM pg_namespace WHERE nspname LIKE 'jp\\_%'")).rows.map((r) => r.n);
  } finally {
    await c.end();
  }
}

describe.skipIf(url === null)('certify with the PostgreSQL store', () => {
  it(`passes ${SCENARIOS.join(', ')} with every worker on PostgreSQL`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jp-certify-pg-'));
    try {
      const before = new Set(await schemas());
      const child = spawn(
        process.execPath,
        [CLI, 'certify', '--scenarios', SCENARIOS.join(','), '--parallel', '1', '--report', `json=${join(dir, 'r.json')}`],
        {
          env: { ...process.env, JOBPROOF_CLIENT_DB: url! },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, out).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
        passed: boolean;
        cases: { name: string; verdict: string }[];
      };
      expect(report.passed).toBe(true);
      expect(report.cases.map((s) => [s.name, s.verdict])).toEqual(SCENARIOS.map((s) => [s, 'pass']));
      // The clients really kept their state in PostgreSQL: one new schema per scenario's state directory.
      const made = (await schemas()).filter((s) => !before.has(s));
      expect(made.length).toBeGreaterThanOrEqual(SCENARIOS.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
