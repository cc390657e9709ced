import { expect } from 'vitest';
import { fleet, mulberry32, op, sleep, until, type Fleet, type Proc } from './rig.js';
import { judgeFleet, type FleetFigures } from './verdict.js';

export const LEASE_MS = 800;

export interface DrillFigures extends FleetFigures {
  kills: number;
  stops: number;
  workers: number;
  wallMs: number;
}

/**
 * Three worker processes on one PostgreSQL schema; `signals` times, one of them is SIGKILLed (and replaced) or
 * SIGSTOPped until its lease has run out and another worker took over something it held, then SIGCONTed. Work keeps
 * arriving meanwhile. Then the fleet finishes and is judged.
 */
/**
 * A live worker that holds an unexpired lease of an open operation, drawn with `rand` from the holders the database
 * shows (sorted by name, so the draw stays seeded). A worker may exit on its own between the query and the draw (a
 * `work` process ends when nothing is open); then it draws again. With no holder for 3 s, it adds work.
 */
async function pickHolder(f: Fleet, alive: () => Proc[], rand: () => number, addWork: () => Promise<void>): Promise<Proc> {
  for (let tries = 0; ; tries++) {
    expect(tries, 'no live worker held the lease of an open operation').toBeLessThan(10);
    let holders: string[] = [];
    await until(async () => {
      const r = await f.store.pool.query<{ lease_owner: string }>(
        'SELECT DISTINCT lease_owner FROM operations WHERE is_open = 1 AND lease_expires_at > $1 AND lease_owner = ANY($2::text[])',
        [Date.now(), alive().map((w) => w.name)],
      );
      holders = r.rows.map((x) => x.lease_owner).sort();
      return holders.length > 0;
    }, 3_000);
    if (holders.length === 0) {
      await addWork();
      continue;
    }
    const pick = holders[Math.floor(rand() * holders.length)];
    const victim = alive().find((w) => w.name === pick);
    if (victim) return victim;
  }
}

export async function fleetDrill(url: string, signals: number, seed: number): Promise<DrillFigures> {
  const f = await fleet(url, LEASE_MS, {
    behavior: { default: { duration_ms: 400, items: 5 } },
    faults: {
      seed,
      rules: [
        { on: 'create', probability: 0.15, fault: { type: 'lose_response', mode: 'reset' } },
        { on: 'status', probability: 0.1, fault: { type: 'fail_before_commit', status: 503 } },
      ],
    },
  });
  const started = Date.now();
  const rand = mulberry32(seed);
  const all: Proc[] = [];
  const killed = new Set<Proc>();
  let n = 0;
  const ids: string[] = [];
  const submit = async (k: number) => {
    for (let i = 0; i < k; i++) {
      const id = `op_${ids.length + 1}`;
      ids.push(id);
      await f.submitter.submit(op(id));
    }
  };
  const alive = () => all.filter((w) => !w.done);
  const topUp = () => {
    while (alive().length < 3) all.push(f.worker(`worker-${++n}`));
  };
  let kills = 0;
  let stops = 0;
  try {
    await submit(6);
    topUp();
    for (let s = 0; s < signals; s++) {
      await submit(2);
      topUp();
      // Hit a worker while it holds the lease of an open operation, at a random moment: a worker hit between steps
      // leaves nothing to take over. Picking a random worker and waiting for it to work left every signal of a CI run
      // on idle workers (takeovers 0, 89 s of timeouts): the new work had gone to the others. So the victim is drawn
      // from the lease holders the database shows, and new work is added until there is one.
      await sleep(Math.floor(rand() * 300));
      const victim = await pickHolder(f, alive, rand, () => submit(2));
      if (rand() < 0.5) {
        victim.kill('SIGKILL');
        killed.add(victim);
        await victim.exited;
        kills++;
      } else {
        victim.kill('SIGSTOP');
        stops++;
        const pausedAt = Date.now();
        topUp();
        // Past the lease: resume once another worker has taken over something it held (observable in the audit), or
        // when it held nothing, after two leases.
        await until(
          async () => {
            if (Date.now() - pausedAt < LEASE_MS) return false;
            const r = await f.store.pool.query("SELECT 1 FROM audit WHERE kind = 'lease' AND detail LIKE $1 AND at >= $2 LIMIT 1", [
              `%"taken_from":"${victim.name}"%`,
              new Date(pausedAt).toISOString(),
            ]);
            return (r.rowCount ?? 0) > 0;
          },
          2 * LEASE_MS + 2_000,
        );
        victim.kill('SIGCONT');
      }
    }
    // Finish: keep a worker running until nothing is open.
    const finished = await until(async () => {
      if (alive().length === 0 && (await f.store.hasOpen())) all.push(f.worker(`worker-${++n}`));
      return !(await f.store.hasOpen());
    }, 90_000);
    expect(finished, 'operations still open after 90 s').toBe(true);
    const codes = await Promise.all(all.filter((w) => !killed.has(w)).map(async (w) => [w.name, await w.exited, w.stderrText] as const));
    for (const [name, code, err] of codes) expect(code, `${name}: ${err}`).toBe(0);
    const figures = await judgeFleet(f, ids);
    return { ...figures, kills, stops, workers: all.length, wallMs: Date.now() - started };
  } finally {
    await f.cleanup();
  }
}
