import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { InProcessClientFactory } from '../contract/client-protocol.js';
import { scaleScenarioTime, type Scenario } from '../scenarios/index.js';
import type { CaseVerdict } from './outcome.js';
import { propertyRun, type PropertyRunOptions, type PropertyRunResult } from './property-run.js';
import type { Shard } from './shard.js';

/**
 * An in-process client factory named by module, so a worker thread can load it (a function cannot cross a thread
 * boundary): `module` is an import specifier resolvable from this package (a file URL, or a package name).
 */
export interface FactoryModule {
  module: string;
  /** The export holding the InProcessClientFactory. */
  name: string;
}

/** The factory a `FactoryModule` names (a lane worker loads it the same way). */
export async function loadFactory(factory: FactoryModule): Promise<InProcessClientFactory> {
  const mod = (await import(factory.module)) as Record<string, unknown>;
  const f = mod[factory.name];
  if (typeof f !== 'function') throw new Error(`${factory.module} has no factory export '${factory.name}'`);
  return f as InProcessClientFactory;
}

/** What certify does to every drawn schedule, as data a lane can carry: the time scale, and webhooks off for a client without. */
export interface DrawnScheduleSpec {
  timeScale?: number;
  /** The client listens for webhooks (default true); false runs every schedule on polling alone. */
  webhooks?: boolean;
}

export function prepareDrawn(spec: DrawnScheduleSpec = {}): (s: Scenario) => Scenario {
  const factor = spec.timeScale ?? 1;
  const webhooks = spec.webhooks ?? true;
  return (s) => scaleScenarioTime(webhooks || !s.webhooks ? s : { ...s, webhooks: false }, factor);
}

export interface PropertyLanesOptions extends Omit<PropertyRunOptions, 'prepare' | 'failedElsewhere' | 'path' | 'onRun'> {
  /** Worker threads, each running its share of the seeded sequence (default: the CPU cores). */
  lanes?: number;
  schedule?: DrawnScheduleSpec;
  /** After each schedule run in any lane (shrinking candidates included). */
  onProgress?: (n: number, verdict: CaseVerdict) => void;
}

/** What a lane worker is given (workerData) and what it posts back. */
export interface LaneInput {
  factory: FactoryModule;
  runs: number;
  seed: number;
  shard: Shard;
  schedule: DrawnScheduleSpec;
  /** One Int32: the lowest position any lane has failed at (2^31 - 1 while none has). */
  failed: SharedArrayBuffer;
}
export type LaneMessage = { type: 'run'; verdict: CaseVerdict; position?: number } | { type: 'done'; result: PropertyRunResult };

const NONE = 2 ** 31 - 1;

/** Lane j (0-based) of m inside shard i/n: the positions p with p mod n = i - 1 and floor(p / n) mod m = j. */
export function laneShard(j: number, m: number, shard: Shard | undefined): Shard {
  const n = shard?.count ?? 1;
  return { index: (shard?.index ?? 1) + n * j, count: n * m };
}

interface Lane {
  result: PropertyRunResult;
  runs: Array<{ verdict: CaseVerdict; position?: number }>;
}

function runLane(input: LaneInput, onRun: (m: Extract<LaneMessage, { type: 'run' }>) => void): Promise<Lane> {
  const worker = new Worker(new URL('./property-lane-worker.js', import.meta.url), { workerData: input });
  const runs: Lane['runs'] = [];
  return new Promise<Lane>((resolve, reject) => {
    worker.on('message', (m: LaneMessage) => {
      if (m.type === 'run') {
        runs.push(m);
        onRun(m);
      } else resolve({ result: m.result, runs });
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`property lane ${input.shard.index}/${input.shard.count} exited with code ${code}`)));
  }).finally(() => void worker.terminate());
}

/**
 * `propertyRun` on worker threads: lane j runs its share of the seeded sequence (as `--shard` does across machines),
 * and the lanes' verdicts are merged into exactly what one thread reports. On a failure, the lane holding the first
 * failing position of the sequence shrinks it, as one thread would have: same counterexample, same path; counts
 * take every position up to it plus that shrink, and other lanes stop at it.
 */
export async function propertyRunLanes(factory: FactoryModule, opts: PropertyLanesOptions): Promise<PropertyRunResult> {
  const seed = opts.seed ?? Date.now() % 2 ** 31;
  const lanes = Math.max(1, Math.min(opts.lanes ?? availableParallelism(), opts.runs || 1));
  const schedule = opts.schedule ?? {};
  if (lanes === 1) {
    return propertyRun(
      { kind: 'in-process', factory: await loadFactory(factory) },
      {
        runs: opts.runs,
        seed,
        shard: opts.shard,
        prepare: prepareDrawn(schedule),
        onRun: (n, run) => opts.onProgress?.(n, run.outcome.verdict),
      },
    );
  }
  const start = Date.now();
  const failed = new SharedArrayBuffer(4);
  new Int32Array(failed)[0] = NONE;
  let n = 0;
  const done = await Promise.all(
    Array.from({ length: lanes }, (_, j) =>
      runLane({ factory, runs: opts.runs, seed, shard: laneShard(j, lanes, opts.shard), schedule, failed }, (m) =>
        opts.onProgress?.(++n, m.verdict),
      ),
    ),
  );
  return { ...mergeLanes(done, opts.runs), wallMs: Date.now() - start };
}

/** The one-thread result from the lanes' results: see propertyRunLanes. */
export function mergeLanes(done: readonly Lane[], planned: number): PropertyRunResult {
  const winner = done
    .filter((l) => l.result.counterexample && l.result.failedAt !== undefined)
    .sort((a, b) => a.result.failedAt! - b.result.failedAt!)[0];
  const last = winner?.result.failedAt ?? Number.POSITIVE_INFINITY;
  const verdicts: Partial<Record<CaseVerdict, number>> = {};
  let executed = 0;
  for (const lane of done) {
    for (const r of lane.runs) {
      const counts = r.position === undefined ? lane === winner : r.position <= last;
      if (!counts) continue;
      verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
      executed++;
    }
  }
  const first = done[0]!.result;
  if (!winner) return { runs: first.runs, planned, executed, seed: first.seed, failed: false, verdicts, wallMs: 0 };
  return { ...winner.result, planned, executed, verdicts };
}
