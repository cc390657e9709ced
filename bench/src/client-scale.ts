/**
 * Reference client at scale, against the OperationStore the worker uses: N open operations in a fresh SQLite store,
 * then the worker's poll decision (hasOpen + claimDue of up to 16, as Worker.run does, plus nextWakeAt, which it
 * calls when nothing was claimed) and the fenced commit that follows each poll. Each size runs in its own process so
 * its RSS is that of one worker's store and heap.
 */
import { fork } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COLUMNS, toDb } from '../../src/reference-client/store/sqlite-schema.js';
import { SqliteOperationStore } from '../../src/reference-client/store/sqlite-store.js';
import type { Lease } from '../../src/reference-client/store/operation-store.js';
import { observingRow } from './observing-row.js';
import { log, mb, median, rssOf, TMP } from './common.js';

export interface ClientScaleConfig {
  sizes: number[];
  /** Decisions per repetition (each claims up to 16): the due pool is 16 × this, the same at every size. */
  decisions: number;
  reps: number;
}

export interface ClientScalePoint {
  open: number;
  duePool: number;
  insertS: number;
  /** Per decision (hasOpen + claimDue(16) + nextWakeAt), median over all decisions of all repetitions. */
  decisionCpuUs: number;
  decisionWallUs: number;
  parts: { countOpenCpuUs: number; claimDueCpuUs: number; nextWakeAtCpuUs: number };
  claimedPerDecision: number;
  /** Fenced commits (one BEGIN IMMEDIATE … COMMIT each, synchronous=FULL) per second, median over repetitions. */
  commitTxPerS: number;
  /** claimDue transactions per second (wall), median over repetitions. */
  claimTxPerS: number;
  rssMb: number;
  rssBeforeStoreMb: number;
  dbMb: number;
  plans: Record<string, string[]>;
}

export interface ClientScaleSection {
  config: ClientScaleConfig;
  points: ClientScalePoint[];
  /** decisionCpuUs at the largest size ÷ at the smallest. */
  growth: number;
}

const OWNER = 'bench-worker';
const LEASE_MS = 10_000;
const LIMIT = 16;
const FAR = 10 * 365 * 86_400_000;

function cpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** In the child: build the store, time the decisions and commits, report. */
async function measure(n: number, cfg: ClientScaleConfig, file: string): Promise<ClientScalePoint> {
  const rssBefore = rssOf(process.pid);
  rmSync(file, { force: true });
  rmSync(`${file}-wal`, { force: true });
  rmSync(`${file}-shm`, { force: true });
  const store = new SqliteOperationStore(file);
  const db = store.raw;
  const t0 = Date.now();
  const pool = Math.min(n, LIMIT * cfg.decisions);
  // Setup (not measured): one transaction of plain INSERTs with the columns insertOperation writes, plus each
  // operation's first history entry. insertOperation itself (one synchronous=FULL transaction each) would take
  // minutes at 100,000.
  // Only the columns this row sets: a column added to the schema later takes its default instead of a NULL.
  const cols = COLUMNS.filter((c) => c in observingRow(0, 0, t0));
  const insert = db.prepare(`INSERT INTO operations (${cols.join(', ')}, is_open) VALUES (${cols.map((c) => `@${c}`).join(', ')}, 1)`);
  const hist = db.prepare(
    `INSERT INTO history (operation_id, seq, at, actor, from_state, to_state, cause, evidence, remote_state) VALUES (?, 1, ?, 'bench', NULL, 'create_pending', 'submitted', '{"kind":"submit"}', NULL)`,
  );
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      // The due pool first; every other operation is open but not due during the measurement.
      const r = observingRow(i, i < pool ? t0 - 1000 - i : t0 + FAR + i, t0);
      const v: Record<string, unknown> = {};
      for (const c of cols) v[c] = toDb(c, r[c]);
      insert.run(v);
      hist.run(r.operation_id, new Date(t0).toISOString());
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const insertS = (Date.now() - t0) / 1000;

  const plan = (sql: string, ...p: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...p) as { detail: string }[]).map((r) => r.detail);
  const plans = {
    countOpen: plan('SELECT EXISTS(SELECT 1 FROM operations WHERE is_open = 1) AS x'),
    claimDue: plan(
      `SELECT operation_id, lease_owner, fencing_token FROM operations WHERE is_open = 1 AND next_poll_at <= @now AND (lease_owner IS NULL OR lease_expires_at <= @now OR lease_owner = @owner) ORDER BY next_poll_at LIMIT @limit`,
      { now: t0, owner: OWNER, limit: LIMIT },
    ),
  };

  const cpu: number[] = [];
  const wall: number[] = [];
  const parts = { countOpen: [] as number[], claimDue: [] as number[], nextWakeAt: [] as number[] };
  const commitRates: number[] = [];
  const claimRates: number[] = [];
  let claimed = 0;
  let decisions = 0;
  for (let rep = 0; rep < cfg.reps; rep++) {
    // Each repetition starts with the pool due again and every lease of the last one expired.
    const now = t0 + (rep + 1) * (LEASE_MS + 3_700_000);
    db.prepare(`UPDATE operations SET next_poll_at = ? WHERE rowid <= ?`).run(now - 1000, pool);
    const leases: Lease[] = [];
    const claimStart = performance.now();
    for (let d = 0; d < cfg.decisions; d++) {
      const w0 = performance.now();
      const c0 = cpuUs();
      await store.hasOpen();
      const c1 = cpuUs();
      const got = await store.claimDue(OWNER, now, LEASE_MS, LIMIT, new Map());
      const c2 = cpuUs();
      await store.nextWakeAt(OWNER, now);
      const c3 = cpuUs();
      wall.push((performance.now() - w0) * 1000);
      cpu.push(c3 - c0);
      parts.countOpen.push(c1 - c0);
      parts.claimDue.push(c2 - c1);
      parts.nextWakeAt.push(c3 - c2);
      claimed += got.length;
      decisions++;
      leases.push(...got);
    }
    claimRates.push(cfg.decisions / ((performance.now() - claimStart) / 1000));
    // The poll's outcome: one fenced commit per leased operation (still running; next poll later).
    const commitStart = performance.now();
    for (const l of leases) {
      const outcome = await store.commit(l, {
        patch: { poll_count: 2, attempt: 2, remote_state: 'running', next_poll_at: now + 3_600_000 },
        history: [],
        audit: [{ at: now, actor: OWNER, kind: 'call', operation_id: l.operation_id, detail: { call: 'poll', status: 200 } }],
      });
      if (outcome !== 'ok') throw new Error(`commit ${l.operation_id}: ${outcome}`);
    }
    commitRates.push(leases.length / ((performance.now() - commitStart) / 1000));
  }
  const rss = rssOf(process.pid);
  await store.close();
  let dbBytes = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      dbBytes += statSync(f).size;
    } catch {
      /* no WAL left */
    }
  }
  return {
    open: n,
    duePool: pool,
    insertS,
    decisionCpuUs: Math.round(median(cpu)),
    decisionWallUs: Math.round(median(wall)),
    parts: {
      countOpenCpuUs: Math.round(median(parts.countOpen)),
      claimDueCpuUs: Math.round(median(parts.claimDue)),
      nextWakeAtCpuUs: Math.round(median(parts.nextWakeAt)),
    },
    claimedPerDecision: Math.round((claimed / decisions) * 10) / 10,
    commitTxPerS: Math.round(median(commitRates)),
    claimTxPerS: Math.round(median(claimRates)),
    rssMb: mb(rss),
    rssBeforeStoreMb: mb(rssBefore),
    dbMb: mb(dbBytes),
    plans,
  };
}

const SELF = fileURLToPath(import.meta.url);

export async function clientScale(cfg: ClientScaleConfig): Promise<ClientScaleSection> {
  const dir = join(TMP, 'client-scale');
  mkdirSync(dir, { recursive: true });
  const points: ClientScalePoint[] = [];
  for (const n of cfg.sizes) {
    const p = await new Promise<ClientScalePoint>((resolve, reject) => {
      const child = fork(SELF, ['child', String(n), JSON.stringify(cfg), join(dir, `client-${n}.db`)], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let got: ClientScalePoint | undefined;
      child.on('message', (m) => (got = m as ClientScalePoint));
      child.once('error', reject);
      child.once('exit', (code) => (got ? resolve(got) : reject(new Error(`client-scale child for ${n} exited ${code}`))));
    });
    points.push(p);
    log(
      `client: ${n.toLocaleString('en')} open: ${p.decisionCpuUs} µs CPU/decision (countOpen ${p.parts.countOpenCpuUs}, claimDue ${p.parts.claimDueCpuUs}, nextWakeAt ${p.parts.nextWakeAtCpuUs}), ${p.decisionWallUs} µs wall; ${p.commitTxPerS} commits/s, ${p.claimTxPerS} claims/s; RSS ${p.rssMb} MB; db ${p.dbMb} MB`,
    );
  }
  const first = points[0]!;
  const last = points.at(-1)!;
  return { config: cfg, points, growth: Math.round((last.decisionCpuUs / first.decisionCpuUs) * 100) / 100 };
}

if (process.argv[1] === SELF && process.argv[2] === 'child') {
  const n = Number(process.argv[3]);
  const cfg = JSON.parse(process.argv[4]!) as ClientScaleConfig;
  const point = await measure(n, cfg, process.argv[5]!);
  process.send!(point, () => process.exit(0));
}
