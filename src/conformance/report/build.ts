import { INVARIANTS, TASK_INVARIANTS } from '../../contract/invariants.js';
import { CASE_VERDICTS } from '../outcome.js';
import { certified } from '../pipeline/certified.js';
import type { PropertyRunResult } from '../property-run.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import { PASS_RULE, REPORT_FORMAT, type CertificationReport, type ReportCase, type TimeScale } from './schema.js';

/** Readable lines for every broken promise of a run, then the case's own reason when it failed otherwise. */
export function failureLines(run: ScenarioRun): string[] {
  const lines: string[] = [...(run.protocolErrors ?? [])];
  for (const inv of run.verdict.invariants) {
    for (const f of inv.failures) lines.push(`${inv.id} ${inv.name} — ${f.operation_id}: ${f.explanation}`);
  }
  if (run.outcome.verdict === 'fail' && !lines.length && run.outcome.reason) lines.push(run.outcome.reason);
  else if (run.timedOut) lines.push('the run hit its time bound before every operation was final');
  return lines;
}

/** One property run as one case: it fails when any schedule failed (by the same rule as a catalog scenario). */
export function schedulesCase(p: PropertyRunResult): ReportCase {
  const cx = p.counterexample;
  return {
    kind: 'schedules',
    name: `random schedules (${p.runs}, seed ${p.seed})`,
    verdict: p.failed ? 'fail' : 'pass',
    reason: p.failed ? (cx ? `a schedule failed: ${cx.run.outcome.reason}` : 'a schedule failed') : null,
    failures: cx ? failureLines(cx.run) : [],
    invariants: cx ? Object.fromEntries(cx.run.verdict.invariants.map((i) => [i.id, i.status])) : {},
    time_bound_hit: cx?.run.timedOut ?? false,
    run_ms: null,
    wall_ms: p.wallMs,
    diagnostics: cx?.run.diagnostics ?? [],
    schedules: {
      runs: p.runs,
      seed: p.seed,
      verdicts: p.verdicts,
      path: p.path ?? null,
      shrinks: p.numShrinks ?? null,
      counterexample: cx?.scenario ?? null,
      planned: p.planned,
      executed: p.executed,
    },
  };
}

export interface ReportHead {
  version: string;
  client: string;
  runner: 'process' | 'in-process';
  seed: number;
  startedAt: string;
  wallMs: number;
  timeScale: TimeScale;
  webhooks: boolean;
  dialect?: 'native' | 'openai' | 'anthropic';
  profile?: { name: string; source: string };
}

const INVARIANT_NAMES: Array<{ id: string; name: string }> = [...INVARIANTS, ...TASK_INVARIANTS].map(({ id, name }) => ({ id, name }));

/** The whole certification, counted and totalled; `passed` is the one pass rule (`certified`), used by the exit code too. */
export function buildReport(head: ReportHead, cases: ReportCase[]): CertificationReport {
  const counts = Object.fromEntries(
    CASE_VERDICTS.map((v) => [v, cases.filter((c) => c.verdict === v).length]),
  ) as CertificationReport['counts'];
  const invariants = INVARIANT_NAMES.filter(({ id }) => cases.some((c) => id in c.invariants)).map(({ id, name }) => {
    const brokenIn = cases.filter((c) => c.invariants[id] === 'broken').map((c) => c.name);
    const status = brokenIn.length ? 'broken' : cases.some((c) => c.invariants[id] === 'held') ? 'held' : 'not_applicable';
    return { id, name, status, broken_in: brokenIn } as const;
  });
  return {
    format: REPORT_FORMAT,
    passed: certified(cases),
    pass_rule: PASS_RULE,
    version: head.version,
    client: head.client,
    runner: head.runner,
    seed: head.seed,
    started_at: head.startedAt,
    wall_ms: head.wallMs,
    time_scale: head.timeScale,
    webhooks: head.webhooks,
    dialect: head.dialect ?? 'native',
    ...(head.profile ? { profile: head.profile } : {}),
    counts,
    invariants,
    cases,
  };
}
