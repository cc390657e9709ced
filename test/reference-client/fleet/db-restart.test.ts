import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type PgCluster } from '../../helpers/pg-cluster.js';
import { pgUrl } from '../../helpers/pg.js';
import { fleet, op, until } from './rig.js';
import { judgeFleet } from './verdict.js';

/**
 * The database itself restarts mid-run (an immediate shutdown: sessions cut, no checkpoint, as a crash or failover
 * would): workers keep running, retry against the returning server, and finish; nothing is lost or duplicated.
 * Uses its own throw-away cluster, since it must stop it.
 */
describe.skipIf(pgUrl() === null)('PostgreSQL restart mid-run', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.destroy());

  it('three workers survive a database restart: every operation finishes, one job each, results verified', async () => {
    const f = await fleet(cluster.url, 1000, { behavior: { default: { duration_ms: 1500, items: 3 } } });
    try {
      const ids = Array.from({ length: 12 }, (_, i) => `op_${i + 1}`);
      for (const id of ids) await f.submitter.submit(op(id));
      const workers = ['worker-a', 'worker-b', 'worker-c'].map((n) => f.worker(n));
      // Down while jobs are in flight: once the workers have created some and polled.
      await until(() => f.requests().filter((e) => e.route === 'status').length >= 6, 30_000);
      cluster.stop('immediate');
      const downAt = f.requests().length;
      // The workers go on (the provider answers; the database does not): wait until they have tried to use it.
      await until(() => f.requests().length > downAt + 3 || workers.every((w) => !w.done), 5_000);
      expect(
        workers.filter((w) => w.done),
        'a worker exited while the database was down',
      ).toEqual([]);
      cluster.start();
      const codes = await Promise.all(workers.map(async (w) => [await w.exited, w.stderrText] as const));
      for (const [code, err] of codes) expect(code, err).toBe(0);
      const figures = await judgeFleet(f, ids);
      console.log(`database restart: ${JSON.stringify(figures)}`);
      expect(figures.duplicateCreates).toBe(0);
      expect(figures.lostResults).toBe(0);
      expect(figures.historyLinesOutOfFence).toBe(0);
      for (const id of ids) expect((await f.submitter.show(id)).state).toBe('succeeded');
    } finally {
      await f.cleanup();
    }
  }, 120_000);
});
