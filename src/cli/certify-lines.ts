import { failureLines } from '../conformance/report/build.js';
import type { CertificationReport, TimeScale } from '../conformance/report/schema.js';
import type { ScenarioRun } from '../conformance/runner/run-scenario.js';

/** `[ 3/23] name` — the fixed-width head of a progress line. */
export function head(i: number, total: number, name: string): string {
  return `[${String(i).padStart(String(total).length)}/${total}] ${name.padEnd(24)}`;
}

/** One scenario's line as it ends: verdict, its own run time and its wall time (a lane may have waited to start it). */
export function progressLine(r: ScenarioRun, i: number, total: number): string {
  const v = r.outcome.verdict;
  const mark = v === 'pass' ? 'pass' : v === 'fail' ? 'FAIL' : v.replace('_', ' ');
  const times = `${(r.runMs / 1000).toFixed(1)} s run, ${(r.wallMs / 1000).toFixed(1)} s wall`;
  return `${head(i, total, r.scenario)} ${mark}  ${times}${v !== 'pass' && r.outcome.reason ? `  — ${r.outcome.reason}` : ''}`;
}

export function timeScaleLine(t: TimeScale): string {
  if (t.source === 'virtual') return `time scale ${t.factor}× (in-process, virtual clock)`;
  if (t.source === 'flag') return `time scale ${t.factor}× (--time-scale)`;
  return `time scale ${t.factor}× — client start ${t.client_start_ms} ms, provider round trip ${t.provider_round_trip_ms} ms (calibrated under the current load; --time-scale overrides)`;
}

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
