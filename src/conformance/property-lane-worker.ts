/**
 * One property lane (property-lanes.ts), in a worker thread: its share of the seeded sequence through `propertyRun`,
 * with the client factory loaded by module name. It tells the other lanes where it failed, so they stop past it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadFactory, prepareDrawn, type LaneInput, type LaneMessage } from './property-lanes.js';
import { propertyRun } from './property-run.js';

const input = workerData as LaneInput;
const port = parentPort!;
const failed = new Int32Array(input.failed);
const post = (m: LaneMessage) => port.postMessage(m);

function failedAt(position: number): void {
  for (let seen = Atomics.load(failed, 0); position < seen; seen = Atomics.load(failed, 0)) {
    if (Atomics.compareExchange(failed, 0, seen, position) === seen) return;
  }
}

const result = await propertyRun(
  { kind: 'in-process', factory: await loadFactory(input.factory) },
  {
    runs: input.runs,
    seed: input.seed,
    shard: input.shard,
    prepare: prepareDrawn(input.schedule),
    failedElsewhere: () => Atomics.load(failed, 0),
    onRun: (_n, run, _s, position) => {
      if (position !== undefined && run.outcome.verdict === 'fail') failedAt(position);
      post({ type: 'run', verdict: run.outcome.verdict, position });
    },
  },
);
post({ type: 'done', result });
