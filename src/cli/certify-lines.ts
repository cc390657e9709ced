import { failureLines } from '../conformance/report/build.js';
import type { CertificationReport } from '../conformance/report/schema.js';
import type { ScenarioRun } from '../conformance/runner/run-scenario.js';

/** The invariant table, then each failed scenario's evidence and the client's first diagnostics. */
export function printVerdicts(report: CertificationReport, results: readonly ScenarioRun[], out: (line: string) => void): void {
  out('\ninvariant                     verdict         broken in');
  for (const t of report.invariants) out(`${`${t.id} ${t.name}`.padEnd(29)} ${t.status.padEnd(15)} ${t.broken_in.join(', ')}`.trimEnd());
  for (const r of results.filter((x) => x.outcome.verdict === 'fail')) {
    out(`\n${r.scenario}:`);
    for (const l of failureLines(r)) out(`  ${l}`);
    for (const d of r.diagnostics.slice(0, 5)) out(`  client: ${d}`);
  }
}

/** The last line: PASSED/FAILED with the counts of every verdict that occurred. */
export function summaryLine(report: CertificationReport, cases: number, factor: number): string {
  const c = report.counts;
  const also = [
    c.not_exercised ? `${c.not_exercised} not exercised` : '',
    c.skipped ? `${c.skipped} skipped` : '',
    c.not_applicable ? `${c.not_applicable} not applicable` : '',
  ].filter(Boolean);
  return `\n${report.passed ? 'PASSED' : 'FAILED'}: ${c.pass} pass, ${c.fail} fail${also.length ? `, ${also.join(', ')}` : ''} of ${cases} cases in ${(report.wall_ms / 1000).toFixed(1)} s (time scale ${factor}×)`;
}
