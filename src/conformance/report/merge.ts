import type { ScenarioRun } from '../runner/run-scenario.js';
import type { Certification } from './summary.js';

/**
 * Join the certificates of `certify --shard 1/n … n/n` into the one an unsharded run would have given: scenarios
 * back in catalog order, the random schedules' verdict the conjunction of the shards'. Pure. Refuses parts that do
 * not belong together (another client, seed, runner, schedule count or shard count) or an incomplete set, since a
 * certificate missing a shard would claim what was never run.
 */
export class MergeError extends Error {}

export function mergeCertifications(parts: readonly Certification[]): Certification {
  if (parts.length === 0) throw new MergeError('nothing to merge');
  const first = parts[0]!;
  const count = first.shard?.count ?? 1;
  for (const [k, p] of parts.entries()) {
    const what = `report ${k + 1}`;
    if (!p.shard && parts.length > 1) throw new MergeError(`${what} is not a shard (certify --shard i/n)`);
    if ((p.shard?.count ?? 1) !== count) throw new MergeError(`${what} is shard ${p.shard?.index}/${p.shard?.count}, the first is of ${count}`);
    for (const key of ['client', 'runner', 'seed', 'version'] as const) {
      if (p[key] !== first[key]) throw new MergeError(`${what} has ${key} '${p[key]}', the first has '${first[key]}': not parts of one certification`);
    }
    if ((p.property?.planned ?? p.property?.runs ?? 0) !== (first.property?.planned ?? first.property?.runs ?? 0)) {
      throw new MergeError(`${what} ran a different number of random schedules than the first (--runs must be the same in every shard)`);
    }
  }
  const seen = new Set(parts.map((p) => p.shard?.index ?? 1));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (seen.size !== parts.length) throw new MergeError('a shard was given twice');
  if (missing.length) throw new MergeError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: a certificate needs every part`);

  const placed: Array<{ position: number; run: ScenarioRun }> = parts.flatMap((p) => p.scenarios.map((run, k) => ({ position: p.shard?.positions[k] ?? k, run })));
  placed.sort((a, b) => a.position - b.position);
  const props = parts.map((p) => p.property).filter((x) => x !== undefined);
  const failed = props.find((x) => x.failed);
  return {
    version: first.version,
    client: first.client,
    runner: first.runner,
    seed: first.seed,
    startedAt: parts.map((p) => p.startedAt).sort()[0]!,
    // Shards run side by side: the certification took as long as its slowest part.
    wallMs: Math.max(...parts.map((p) => p.wallMs)),
    scenarios: placed.map((x) => x.run),
    property: props.length
      ? {
          ...(failed ?? props[0]!),
          runs: failed ? failed.runs : props[0]!.planned ?? props[0]!.runs,
          planned: props[0]!.planned,
          executed: props.reduce((n, x) => n + (x.executed ?? x.runs), 0),
          failed: !!failed,
          wallMs: Math.max(...props.map((x) => x.wallMs)),
        }
      : undefined,
    mergedFrom: parts.length,
  };
}
