import type { TimeScale } from '../report/schema.js';
import type { ScenarioRun } from '../runner/run-scenario.js';

/** `[ 3/23] name` — the fixed-width head of a progress line. */
export function head(i: number, total: number, name: string): string {
  return `[${String(i).padStart(String(total).length)}/${total}] ${name.padEnd(24)}`;
}

/** A verdict as a progress line shows it: FAIL stands out, the others read as words. */
export function mark(v: string): string {
  return v === 'pass' ? 'pass' : v === 'fail' ? 'FAIL' : v.replace('_', ' ');
}

/** One scenario's line as it ends: verdict, its own run time and its wall time (a lane may have waited to start it). */
export function progressLine(r: ScenarioRun, i: number, total: number): string {
  const v = r.outcome.verdict;
  const times = `${(r.runMs / 1000).toFixed(1)} s run, ${(r.wallMs / 1000).toFixed(1)} s wall`;
  return `${head(i, total, r.scenario)} ${mark(v)}  ${times}${v !== 'pass' && r.outcome.reason ? `  — ${r.outcome.reason}` : ''}`;
}

export function timeScaleLine(t: TimeScale): string {
  if (t.source === 'virtual') return `time scale ${t.factor}× (in-process, virtual clock)`;
  if (t.source === 'flag') return `time scale ${t.factor}× (--time-scale)`;
  return `time scale ${t.factor}× — client start ${t.client_start_ms} ms, provider round trip ${t.provider_round_trip_ms} ms (calibrated under the current load; --time-scale overrides)`;
}
