import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { toJUnit } from './junit.js';
import { toMarkdown } from './markdown.js';
import { passed, runPassed, type Certification } from './summary.js';
import type { ReportKind } from '../../lib/report-spec.js';

export function toJson(c: Certification): string {
  return JSON.stringify(
    {
      passed: passed(c), version: c.version, client: c.client, runner: c.runner, seed: c.seed, started_at: c.startedAt, wall_ms: c.wallMs,
      scenarios: c.scenarios.map((r) => ({ scenario: r.scenario, ok: runPassed(r), timed_out: r.timedOut, vacuous: r.vacuous, run_ms: r.runMs, wall_ms: r.wallMs, invariants: r.verdict.invariants, diagnostics: r.diagnostics })),
      tasks: c.tasks,
      property: c.property && {
        runs: c.property.runs, seed: c.property.seed, failed: c.property.failed, path: c.property.path, shrinks: c.property.numShrinks, wall_ms: c.property.wallMs,
        counterexample: c.property.counterexample && { scenario: c.property.counterexample.scenario, invariants: c.property.counterexample.run.verdict.invariants },
      },
    },
    null,
    2,
  );
}

export function writeReports(c: Certification, targets: Array<{ kind: ReportKind; path: string }>): void {
  for (const t of targets) {
    mkdirSync(dirname(t.path), { recursive: true });
    writeFileSync(t.path, t.kind === 'junit' ? toJUnit(c) : t.kind === 'md' ? toMarkdown(c) : toJson(c) + '\n');
  }
}
