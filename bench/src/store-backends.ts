/**
 * The operation store on SQLite beside PostgreSQL, measured the same way: N open operations (1k → 100k), then the
 * worker's poll decision (hasOpen + claimDue of up to 16 + nextWakeAt, as Worker.run makes it), claim transactions
 * per second, and the fenced commit that follows each poll. Wall time (PostgreSQL's work happens in its server, so
 * the client's CPU would say nothing). `node dist/bench/store-backends.js` with JOBPROOF_BENCH_PG=postgres://… (or
 * JOBPROOF_TEST_PG); writes bench/store-backends.json.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Lease, OperationStore } from '../../src/reference-client/store/operation-store.js';
import { PgOperationStore } from '../../src/reference-client/store/pg-store.js';
import { COLUMNS, toDb } from '../../src/reference-client/store/sqlite-schema.js';
import { SqliteOperationStore } from '../../src/reference-client/store/sqlite-store.js';
import { observingRow } from './observing-row.js';
import { loadAverage, log, machine, median, ROOT, TMP } from './common.js';
import { storeBackendsMarkdown, writeStoreSection, type StoreBackendsResults } from './store-backends-report.js';

const OWNER = 'bench-worker';
const LEASE_MS = 10_000;
const LIMIT = 16;
const FAR = 10 * 365 * 86_400_000;

export interface BackendPoint {
  backend: 'sqlite' | 'postgres';
  open: number;
  insertS: number;
  /** hasOpen + claimDue(16) + nextWakeAt, median wall µs over every decision. */
  decisionWallUs: number;
  parts: { hasOpenUs: number; claimDueUs: number; nextWakeAtUs: number };
  /** claimDue transactions per second, one worker, median over repetitions (each claims up to 16). */
  claimTxPerS: number;
  /** Operations leased per second by those transactions. */
  claimedPerS: number;
  /** Fenced commits (row lock or write lock, CAS on the token, audit chained) per second. */
  commitTxPerS: number;
}

interface Seeded {
  store: OperationStore;
  /** Make the first `pool` operations due at `at`, every lease expired. */
  makeDue(at: number, pool: number): Promise<void>;
  close(): Promise<void>;
}

async function seedSqlite(n: number, pool: number, t0: number): Promise<Seeded> {
  const dir = join(TMP, 'store-backends');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `client-${n}.db`);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const store = new SqliteOperationStore(file);
  const db = store.raw;
  const cols = COLUMNS.filter((c) => c !== 'lease_owner' && c !== 'lease_expires_at');
  const insert = db.prepare(`INSERT INTO operations (${cols.join(', ')}, is_open) VALUES (${cols.map((c) => `@${c}`).join(', ')}, 1)`);
  const hist = db.prepare(
    `INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, remote_state) VALUES (?, 1, ?, 'bench', NULL, 'create_pending', 'submit', '{"kind":"submit"}', NULL)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const r = observingRow(i, i < pool ? t0 - 1000 - i : t0 + FAR + i, t0);
      const v: Record<string, unknown> = {};
      for (const c of cols) v[c] = toDb(c, (r as Record<string, unknown>)[c]);
      insert.run(v);
      hist.run(r.operation_id, new Date(t0).toISOString());
    }
  })();
  return {
    store,
    makeDue: async (at, p) => void db.prepare('UPDATE operations SET next_poll_at = ? WHERE rowid <= ?').run(at, p),
    close: async () => store.close(),
  };
}

async function seedPg(url: string, n: number, pool: number, t0: number): Promise<Seeded> {
  const schema = `jp_bench_${n}`;
  const store = new PgOperationStore(url, schema);
  await store.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await store.hasOpen(); // migrates
  await store.pool.query(
    `INSERT INTO operations (operation_id, state, is_open, remote_state, kind, input, request_fingerprint, idempotency_key, trace_id, submitted_at,
       create_deadline_at, result_deadline_at, remote_job_id, next_poll_at, not_before, attempt, poll_count, create_attempts, last_create_at, cancel_sends,
       collect_attempts, fencing_token)
     SELECT 'op-' || i, 'observing', 1, 'running', 'report', '{"account":"a"}', 'fp-' || i, 'key-' || i, 'trace-' || i, $1::bigint - 60000,
       $1::bigint + 600000000, $1::bigint + 600000000, 'job-' || i,
       CASE WHEN i < $2 THEN $1::bigint - 1000 - i ELSE $1::bigint + ${FAR} + i END, 0, 1, 1, 1, $1::bigint - 60000, 0, 0, 0
     FROM generate_series(0, $3::int - 1) AS i`,
    [t0, pool, n],
  );
  await store.pool.query(`INSERT INTO history (operation_id, seq, at, actor, to_state, cause, evidence, fencing_token)
     SELECT operation_id, 1, 'x', 'bench', 'create_pending', 'submit', '{"kind":"submit"}', 0 FROM operations`);
  await store.pool.query('VACUUM ANALYZE operations');
  return {
    store,
    makeDue: async (at, p) =>
      void (await store.pool.query(
        `UPDATE operations SET next_poll_at = $1 WHERE operation_id IN (SELECT 'op-' || i FROM generate_series(0, $2::int - 1) AS i)`,
        [at, p],
      )),
    close: async () => {
      await store.pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await store.close();
    },
  };
}

async function measure(
  backend: BackendPoint['backend'],
  n: number,
  decisions: number,
  reps: number,
  url: string | null,
): Promise<BackendPoint> {
  const t0 = Date.now();
  const pool = Math.min(n, LIMIT * decisions);
  const s = backend === 'sqlite' ? await seedSqlite(n, pool, t0) : await seedPg(url!, n, pool, t0);
  const insertS = (Date.now() - t0) / 1000;
  const wall: number[] = [];
  const parts = { hasOpen: [] as number[], claimDue: [] as number[], nextWakeAt: [] as number[] };
  const claimRates: number[] = [];
  const claimedRates: number[] = [];
  const commitRates: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const now = t0 + (rep + 1) * (LEASE_MS + 3_700_000);
    await s.makeDue(now - 1000, pool);
    const leases: Lease[] = [];
    const start = performance.now();
    for (let d = 0; d < decisions; d++) {
      const a = performance.now();
      await s.store.hasOpen();
      const b = performance.now();
      const got = await s.store.claimDue(OWNER, now, LEASE_MS, LIMIT, new Map());
      const c = performance.now();
      await s.store.nextWakeAt(OWNER, now);
      const e = performance.now();
      wall.push((e - a) * 1000);
      parts.hasOpen.push((b - a) * 1000);
      parts.claimDue.push((c - b) * 1000);
      parts.nextWakeAt.push((e - c) * 1000);
      leases.push(...got);
    }
    const claimS = (performance.now() - start) / 1000;
    claimRates.push(decisions / claimS);
    claimedRates.push(leases.length / claimS);
    const cs = performance.now();
    for (const l of leases) {
      const out = await s.store.commit(l, {
        patch: { poll_count: 2, attempt: 2, remote_state: 'running', next_poll_at: now + 3_600_000 },
        history: [],
        audit: [{ at: now, actor: OWNER, kind: 'call', operation_id: l.operation_id, detail: { route: 'status', status: 200 } }],
      });
      if (out !== 'ok') throw new Error(`commit ${l.operation_id}: ${out}`);
    }
    commitRates.push(leases.length / ((performance.now() - cs) / 1000));
  }
  await s.close();
  const r = Math.round;
  return {
    backend,
    open: n,
    insertS: Math.round(insertS * 10) / 10,
    decisionWallUs: r(median(wall)),
    parts: { hasOpenUs: r(median(parts.hasOpen)), claimDueUs: r(median(parts.claimDue)), nextWakeAtUs: r(median(parts.nextWakeAt)) },
    claimTxPerS: r(median(claimRates)),
    claimedPerS: r(median(claimedRates)),
    commitTxPerS: r(median(commitRates)),
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--rewrite-report')) {
    const results = JSON.parse(readFileSync(join(ROOT, 'bench/store-backends.json'), 'utf8')) as StoreBackendsResults;
    writeStoreSection(join(ROOT, 'docs', 'benchmarks.md'), storeBackendsMarkdown(results));
    log('rewrote the store section of docs/benchmarks.md from bench/store-backends.json');
    return;
  }
  const url = process.env.JOBPROOF_BENCH_PG ?? process.env.JOBPROOF_TEST_PG ?? null;
  const quick = process.argv.includes('--quick');
  const sizes = quick ? [1000, 10_000] : [1000, 10_000, 100_000];
  const decisions = quick ? 10 : 40;
  const reps = quick ? 1 : 3;
  if (!url) log('JOBPROOF_BENCH_PG is not set: measuring SQLite only (give a postgres:// URL to compare)');
  const before = loadAverage();
  let fsync: string | null = null;
  let version: string | undefined;
  if (url) {
    const probe = new PgOperationStore(url, 'jp_bench_probe');
    fsync = (await probe.pool.query('SHOW fsync')).rows[0].fsync as string;
    version = (await probe.pool.query('SHOW server_version')).rows[0].server_version as string;
    await probe.close();
  }
  const points: BackendPoint[] = [];
  for (const n of sizes) {
    for (const backend of url ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
      const p = await measure(backend, n, decisions, reps, url);
      points.push(p);
      log(
        `${backend.padEnd(8)} ${String(n).padStart(6)} open: ${p.decisionWallUs} µs/decision (hasOpen ${p.parts.hasOpenUs}, claimDue ${p.parts.claimDueUs}, nextWakeAt ${p.parts.nextWakeAtUs}); ${p.claimTxPerS} claims/s (${p.claimedPerS} ops/s); ${p.commitTxPerS} commits/s`,
      );
    }
  }
  const out: StoreBackendsResults & { quick: boolean } = {
    date: new Date().toISOString(),
    quick,
    machine: machine(),
    loadavg: { start: before, end: loadAverage() },
    postgres: url ? { fsync, version } : null,
    config: { sizes, decisions, reps, limit: LIMIT },
    points,
  };
  const file = join(ROOT, quick ? 'bench/tmp/store-backends-quick.json' : 'bench/store-backends.json');
  mkdirSync(join(ROOT, 'bench', 'tmp'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  log(`wrote ${file}`);
  if (!quick) {
    writeStoreSection(join(ROOT, 'docs', 'benchmarks.md'), storeBackendsMarkdown(out));
    log('updated docs/benchmarks.md (section "Operation store: SQLite beside PostgreSQL")');
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
