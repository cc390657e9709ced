import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Db } from './database.js';

/** How often the checkpointing thread copies committed WAL frames into the store file. */
const INTERVAL_MS = 100;

/**
 * The main connection still checkpoints by itself past this many WAL pages (~40 MB): the bound on the WAL if the
 * thread lags or stops. SQLite's default is 1,000 pages, reached every ~24 commits of 16 creates.
 */
const FALLBACK_PAGES = 10_000;

/**
 * An inline script (no file to locate from src/ under vitest or dist/ in a package): its own connection to the
 * store, a PASSIVE checkpoint every INTERVAL_MS. PASSIVE never waits for a lock and never blocks the writer.
 */
const SCRIPT = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
setInterval(() => {
  try { checkpoint.run(); } catch {}
}, workerData.intervalMs);
`;

export interface BackgroundCheckpoint {
  stop(): void;
  /**
   * Empty the WAL into the store file (a TRUNCATE checkpoint on `db`), waiting out a checkpoint the thread may still
   * be running: only one checkpoint runs at a time, and SQLite answers a second one busy at once rather than waiting.
   */
  drain(db: Db): void;
}

/** How long close() waits for the thread's last PASSIVE checkpoint to let go (it copies at most a few MB). */
const DRAIN_WAIT_MS = 5_000;

/**
 * WAL checkpoints on a thread of their own (docs/decisions/023-background-checkpoint.md). A checkpoint on the
 * provider's connection ran inside a COMMIT every ~1,000 pages and held the event loop ~14 ms (4 ms of CPU, the rest
 * waiting for fsync): ~39 µs of every create's wall time. Durability is unchanged: a checkpoint only copies frames
 * that are committed already, and any connection may run it.
 */
export function startBackgroundCheckpoint(db: Db, path: string): BackgroundCheckpoint {
  db.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(SCRIPT, { eval: true, workerData: { sqlite, path, intervalMs: INTERVAL_MS } });
  // A thread that cannot open the store leaves the fallback in charge; nothing else depends on it.
  worker.on('error', (err) => console.error(`[jobproof] background checkpoint stopped: ${err.message}`));
  worker.unref();
  return {
    stop: () => {
      void worker.terminate();
    },
    drain: (conn) => {
      const pause = new Int32Array(new SharedArrayBuffer(4));
      const until = Date.now() + DRAIN_WAIT_MS;
      for (;;) {
        const [row] = conn.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (row?.busy === 0 || Date.now() >= until) return;
        Atomics.wait(pause, 0, 0, 5);
      }
    },
  };
}
