import { createHash } from 'node:crypto';
import { propertyRun } from '../../src/conformance/property-run.js';
import { createInMemoryReferenceClient } from '../../src/reference-client/index.js';

/**
 * A hash of what a seeded in-process property run decided, schedule by schedule: position, case verdict and reason,
 * virtual run time, every invariant's status, every journal entry whole and each record's final
 * state. Two builds that print the same hash for the same seed and count ran the same schedules to the same verdicts
 * on the same ground truth: the check that a speed change changed nothing else.
 *
 * Usage: node dist-bench/bench/src/fingerprint.js [runs=300] [seed=42] [--lines]
 */
const RANDOM = /^(idem|tr)_[0-9a-f]+$/;
const args = process.argv.slice(2);
const lines = args.includes('--lines');
const [runs = 300, seed = 42] = args.filter((a) => !a.startsWith('--')).map(Number);
const all = createHash('sha256');
const t0 = performance.now();
const result = await propertyRun(
  { kind: 'in-process', factory: createInMemoryReferenceClient },
  {
    runs,
    seed,
    onRun: (_n, run, _s, position) => {
      const e = run.evidence;
      // The client draws its keys and trace ids at random: each is replaced by its order of first appearance.
      const seen = new Map<string, string>();
      const stable = (_k: string, v: unknown) =>
        typeof v === 'string' && RANDOM.test(v) ? (seen.get(v) ?? seen.set(v, `#${seen.size}`).get(v)) : v;
      const line = JSON.stringify(
        [
          position,
          run.outcome.verdict,
          run.outcome.reason ?? null,
          run.runMs,
          run.verdict.invariants.map((i) => `${i.id}:${i.status}`),
          e.journal,
          e.records.map((r) => [r.operation_id, r.state, r.job_id ?? null]),
        ],
        stable,
      );
      if (lines) console.log(createHash('sha256').update(line).digest('hex').slice(0, 12), position, run.outcome.verdict);
      all.update(line);
    },
  },
);
const cpu = process.cpuUsage();
console.log(
  `fingerprint ${all.digest('hex').slice(0, 16)}  runs ${result.runs} seed ${seed} failed ${result.failed}  ` +
    `wall ${((performance.now() - t0) / 1000).toFixed(2)} s  cpu ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
);
