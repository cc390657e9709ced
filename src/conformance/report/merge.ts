import { buildReport } from './build.js';
import { CertificationReportSchema, type CertificationReport, type ReportCase } from './schema.js';

/**
 * Join the reports of `certify --shard 1/n … n/n` into the one an unsharded run would have given: scenario cases
 * back in catalog order, the random schedules one case again (it fails when any shard's failed), the task cases
 * (shard 1 runs them) after, then counted and totalled by the same `buildReport` as certify. Pure. Refuses parts
 * that do not belong together (another client, runner, seed, version, schedule count or shard count) and an
 * incomplete set: a certificate missing a shard would claim what was never run.
 */
export class MergeError extends Error {}

export function parseReport(value: unknown, source: string): CertificationReport {
  const r = CertificationReportSchema.safeParse(value);
  if (!r.success)
    throw new MergeError(
      `${source} is not a jobproof JSON report (certify --report json=…): ${r.error.issues[0]?.path.join('.') || '(root)'}: ${r.error.issues[0]?.message}`,
    );
  return r.data;
}

const schedulesOf = (r: CertificationReport) => r.cases.find((c) => c.kind === 'schedules');
const planned = (r: CertificationReport) => {
  const s = schedulesOf(r)?.schedules;
  return s ? (s.planned ?? s.runs) : 0;
};

export function mergeReports(parts: readonly CertificationReport[]): CertificationReport {
  if (parts.length === 0) throw new MergeError('nothing to merge');
  const first = parts[0]!;
  const count = first.shard?.count ?? 1;
  for (const [k, p] of parts.entries()) {
    const what = `report ${k + 1}`;
    if (!p.shard) throw new MergeError(`${what} is not a shard (certify --shard i/n)`);
    if (p.shard.count !== count) throw new MergeError(`${what} is shard ${p.shard.index}/${p.shard.count}, the first is one of ${count}`);
    for (const key of ['client', 'runner', 'seed', 'version', 'webhooks'] as const) {
      if (p[key] !== first[key])
        throw new MergeError(`${what} has ${key} '${p[key]}', the first has '${first[key]}': not parts of one certification`);
    }
    if (planned(p) !== planned(first))
      throw new MergeError(
        `${what} planned ${planned(p)} random schedules, the first ${planned(first)}: --runs must be the same in every shard`,
      );
  }
  const indexes = parts.map((p) => p.shard!.index);
  if (new Set(indexes).size !== indexes.length) throw new MergeError('a shard was given twice');
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !indexes.includes(i));
  if (missing.length)
    throw new MergeError(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: a certificate needs every part`,
    );

  const scenarios = parts
    .flatMap((p) => p.cases.filter((c) => c.kind === 'scenario'))
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const cases: ReportCase[] = [...scenarios];
  const schedules = parts.map(schedulesOf).filter((c) => c !== undefined);
  if (schedules.length) cases.push(mergeSchedules(schedules, planned(first), first.seed));
  cases.push(...parts.flatMap((p) => p.cases.filter((c) => c.kind === 'task')));
  const merged = buildReport(
    {
      version: first.version,
      client: first.client,
      runner: first.runner,
      seed: first.seed,
      startedAt: parts.map((p) => p.started_at).sort()[0]!,
      // Shards run side by side: the certification took as long as its slowest part.
      wallMs: Math.max(...parts.map((p) => p.wall_ms)),
      // Each shard calibrated its own runner; the report shows the largest factor any part ran under.
      timeScale: parts.map((p) => p.time_scale).sort((a, b) => b.factor - a.factor)[0]!,
      webhooks: first.webhooks,
    },
    cases,
  );
  return { ...merged, merged_from: parts.length };
}

/** The shards' parts of one property run as the one case the unsharded run would have: it fails if any part failed. */
function mergeSchedules(parts: ReportCase[], plannedRuns: number, seed: number): ReportCase {
  const failed = parts.find((c) => c.verdict === 'fail');
  const verdicts: Record<string, number> = {};
  for (const c of parts) for (const [k, n] of Object.entries(c.schedules?.verdicts ?? {})) verdicts[k] = (verdicts[k] ?? 0) + (n ?? 0);
  const base = failed ?? parts[0]!;
  return {
    ...base,
    name: `random schedules (${plannedRuns}, seed ${seed})`,
    verdict: failed ? 'fail' : parts.every((c) => c.verdict === 'pass') ? 'pass' : base.verdict,
    wall_ms: Math.max(...parts.map((c) => c.wall_ms)),
    schedules: {
      ...base.schedules!,
      runs: failed?.schedules?.runs ?? plannedRuns,
      planned: plannedRuns,
      executed: parts.reduce((n, c) => n + (c.schedules?.executed ?? c.schedules?.runs ?? 0), 0),
      verdicts,
    },
  };
}
