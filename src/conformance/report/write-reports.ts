import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { toJUnit } from './junit.js';
import { toMarkdown } from './markdown.js';
import { passed, runPassed, type Certification } from './summary.js';

export type ReportKind = 'junit' | 'json' | 'md';

/** Parse `junit=PATH,json=PATH,md=PATH`. */
export function parseReportSpec(spec: string): Array<{ kind: ReportKind; path: string }> {
  return spec.split(',').filter(Boolean).map((part) => {
    const [kind, ...rest] = part.split('=');
    const path = rest.join('=');
    if (!['junit', 'json', 'md'].includes(kind ?? '') || !path) throw new Error(`--report expects junit=PATH,json=PATH,md=PATH; got '${part}'`);
    return { kind: kind as ReportKind, path };
  });
}

export function toJson(c: Certification): string {
  return JSON.stringify(
    {
      passed: passed(c), version: c.version, client: c.client, runner: c.runner, seed: c.seed, started_at: c.startedAt, wall_ms: c.wallMs,
      shard: c.shard ? { index: c.shard.index, count: c.shard.count } : undefined,
      merged_from: c.mergedFrom,
      scenarios: c.scenarios.map((r, k) => ({ ...runJson(r), position: c.shard?.positions[k] ?? k })),
      property: c.property && {
        runs: c.property.runs, planned: c.property.planned, executed: c.property.executed, seed: c.property.seed, failed: c.property.failed,
        path: c.property.path, shrinks: c.property.numShrinks, wall_ms: c.property.wallMs,
        counterexample: c.property.counterexample && { scenario: c.property.counterexample.scenario, invariants: c.property.counterexample.run.verdict.invariants, run: runJson(c.property.counterexample.run) },
      },
    },
    null,
    2,
  );
}

function runJson(r: Certification['scenarios'][number]) {
  return { scenario: r.scenario, ok: runPassed(r), verdict_ok: r.verdict.ok, timed_out: r.timedOut, vacuous: r.vacuous, run_ms: r.runMs, wall_ms: r.wallMs, invariants: r.verdict.invariants, diagnostics: r.diagnostics };
}

export function writeReports(c: Certification, targets: Array<{ kind: ReportKind; path: string }>): void {
  for (const t of targets) {
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(t.path, t.kind === 'junit' ? toJUnit(c) : t.kind === 'md' ? toMarkdown(c) : toJson(c) + '\n');
  }
}
