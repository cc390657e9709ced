import { INVARIANTS } from '../../contract/invariants.js';
import { CASE_VERDICTS, certificationPassed, type CaseVerdict } from '../outcome.js';
import type { PropertyRunResult } from '../property-run.js';
import type { ScenarioRun } from '../runner/run-scenario.js';
import { TASK_INVARIANTS, type TaskVerdict } from '../tasks/check.js';
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

export function scenarioCase(run: ScenarioRun): ReportCase {
  return {
    kind: 'scenario',
    name: run.scenario,
    verdict: run.outcome.verdict,
    reason: run.outcome.reason,
    failures: failureLines(run),
    invariants: Object.fromEntries(run.verdict.invariants.map((i) => [i.id, i.status])),
    time_bound_hit: run.timedOut,
    run_ms: run.runMs,
    wall_ms: run.wallMs,
    diagnostics: run.diagnostics,
    schedules: null,
  };
}

export function skippedCase(
  name: string,
  reason: string,
  verdict: Extract<CaseVerdict, 'skipped' | 'not_applicable'> = 'skipped',
): ReportCase {
  return {
    kind: 'scenario',
    name,
    verdict,
    reason,
    failures: [],
    invariants: {},
    time_bound_hit: false,
    run_ms: null,
    wall_ms: 0,
    diagnostics: [],
    schedules: null,
  };
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

const TASK_CELL = { pass: 'held', fail: 'broken', vacuous: 'not_applicable' } as const;

/** A task scenario run: fails on a broken task invariant or an expectation of the scenario not met. */
export function taskCase(
  run: {
    scenario: string;
    verdict: TaskVerdict;
    problems: string[];
    finished: boolean;
    elapsed_ms: number;
    /** Why the run did not exercise the scenario's point (a real-time race the client won legitimately). */
    not_exercised?: string[];
    diagnostics?: string[];
  },
  wallMs: number,
): ReportCase {
  const results = Object.values(run.verdict.results);
  const failures = [...results.flatMap((r) => r.violations.map((v) => `${r.id} ${r.title.split(':')[0]} — ${v}`)), ...run.problems];
  const failed = !run.verdict.ok || run.problems.length > 0 || !run.finished;
  const held = results.some((r) => r.status === 'pass');
  const missed = run.not_exercised ?? [];
  const verdict: CaseVerdict = failed ? 'fail' : !held ? 'fail' : missed.length ? 'not_exercised' : 'pass';
  return {
    kind: 'task',
    name: run.scenario,
    verdict,
    reason:
      verdict === 'pass'
        ? null
        : verdict === 'not_exercised'
          ? missed.join('; ')
          : !run.finished
            ? 'the run hit its time bound before every task was final'
            : held || failures.length
              ? `broken: ${run.verdict.failed.join(' ') || 'scenario expectations'}`
              : 'nothing tested',
    failures,
    invariants: Object.fromEntries(results.map((r) => [r.id, TASK_CELL[r.status]])),
    time_bound_hit: !run.finished,
    run_ms: run.elapsed_ms,
    wall_ms: wallMs,
    diagnostics: run.diagnostics ?? [],
    schedules: null,
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
}

const INVARIANT_NAMES: Array<{ id: string; name: string }> = [
  ...INVARIANTS.map(({ id, name }) => ({ id, name })),
  ...Object.entries(TASK_INVARIANTS).map(([id, title]) => ({ id, name: title.split(':')[0]! })),
];

/** The whole certification, counted and totalled; `passed` is the one pass rule, used by the exit code too. */
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
    passed: certificationPassed(cases.map((c) => c.verdict)),
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
    counts,
    invariants,
    cases,
  };
}
