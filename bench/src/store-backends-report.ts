import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { BackendPoint } from './store-backends.js';

/**
 * The "SQLite beside PostgreSQL" section of docs/benchmarks.md, between markers so `npm run bench` (which rewrites
 * the file) keeps it, and `npm run bench:stores` replaces only it.
 */
export const BEGIN = '<!-- store-backends: written by `npm run bench:stores` -->';
export const END = '<!-- /store-backends -->';

export interface StoreBackendsResults {
  date: string;
  machine: { cores: number; cpu: string; node: string };
  loadavg: { start: number[]; end: number[] };
  postgres: { fsync: string | null; version?: string } | null;
  config: { sizes: number[]; decisions: number; reps: number; limit: number };
  points: BackendPoint[];
}

const n = (x: number) => x.toLocaleString('en');

export function storeBackendsMarkdown(r: StoreBackendsResults): string {
  const L: string[] = [BEGIN, '', '## Operation store: SQLite beside PostgreSQL', ''];
  L.push(
    `\`npm run bench:stores\` (\`bench/src/store-backends.ts\`), ${r.date}; ${r.machine.cores} cores (${r.machine.cpu}), Node ${r.machine.node}. ` +
      `**The machine was shared and very busy** (load average ${r.loadavg.start.join(' / ')} at the start, ${r.loadavg.end.join(' / ')} at the end, on 2 cores): absolute figures are low and noisy; compare the backends and the sizes, measured one after the other.`,
    '',
    `Both stores hold N open operations, ${r.config.limit * r.config.decisions} of them due. A decision is what \`Worker.run\` does per loop: \`hasOpen()\` + \`claimDue(owner, now, 10 s, ${r.config.limit})\` + \`nextWakeAt()\`; ` +
      `${r.config.decisions} decisions × ${r.config.reps} repetitions, median wall time (PostgreSQL does its work in its server, so client CPU would say nothing). Each claimed operation is then committed (\`commit\`: fenced CAS, audit chained). ` +
      `SQLite: WAL, synchronous=FULL. PostgreSQL ${r.postgres?.version ?? ''}: a local cluster over loopback TCP, fsync=${r.postgres?.fsync ?? '?'}, synchronous_commit on, default settings otherwise; one connection pool of 4.`,
    '',
    '| open operations | backend | wall µs / decision | hasOpen | claimDue(16) | nextWakeAt | claim tx/s | operations leased/s | commit tx/s |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  );
  for (const p of r.points) {
    L.push(
      `| ${n(p.open)} | ${p.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${n(p.decisionWallUs)} | ${n(p.parts.hasOpenUs)} | ${n(p.parts.claimDueUs)} | ${n(p.parts.nextWakeAtUs)} | ${n(p.claimTxPerS)} | ${n(p.claimedPerS)} | ${n(p.commitTxPerS)} |`,
    );
  }
  const growth = (b: BackendPoint['backend']) => {
    const ps = r.points.filter((p) => p.backend === b);
    return ps.length > 1 ? (ps.at(-1)!.decisionWallUs / ps[0]!.decisionWallUs).toFixed(2) : '—';
  };
  L.push(
    '',
    `Per-poll cost from the smallest to the largest size: SQLite ${growth('sqlite')}×, PostgreSQL ${growth('postgres')}× — flat on both: the due set is read through the partial \`next_poll_at\` index and the exit test is an EXISTS.`,
    '',
    "Reading: on both backends a claim and a commit are each one durable transaction (a flush to disk), so one worker's claim and commit rates are bound by the flush rate and the round trips, not by the number of open operations. PostgreSQL pays loopback round trips (a claim is 2–4 statements, a commit 6–7 with the audit chain) and its own WAL flush; what it buys is workers on many machines claiming side by side (`SKIP LOCKED`: no claimer waits on another), which one SQLite file cannot offer. `hasOpen` on PostgreSQL is one round trip (~150–260 µs here), on SQLite an in-process call.",
    '',
    END,
    '',
  );
  return L.join('\n');
}

/** Put the section into docs/benchmarks.md, replacing an earlier one. */
export function writeStoreSection(mdFile: string, section: string): void {
  const md = existsSync(mdFile) ? readFileSync(mdFile, 'utf8') : '# Benchmarks\n';
  const i = md.indexOf(BEGIN);
  const j = md.indexOf(END);
  const next = i >= 0 && j > i ? md.slice(0, i) + section.trimEnd() + md.slice(j + END.length) : `${md.trimEnd()}\n\n${section}`;
  writeFileSync(mdFile, next.endsWith('\n') ? next : `${next}\n`);
}

/** The section as it stands in a file, for `npm run bench` to carry over when it rewrites the file. */
export function existingStoreSection(mdFile: string): string {
  if (!existsSync(mdFile)) return '';
  const md = readFileSync(mdFile, 'utf8');
  const i = md.indexOf(BEGIN);
  const j = md.indexOf(END);
  return i >= 0 && j > i ? `\n${md.slice(i, j + END.length)}\n` : '';
}
