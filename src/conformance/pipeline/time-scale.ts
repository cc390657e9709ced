import { availableParallelism } from 'node:os';
import { calibrateLanes } from '../calibrate.js';
import type { TimeScale } from '../report/schema.js';
import type { CertificationPlan } from './plan.js';

/**
 * The time scale a certification runs under, and its lanes: given; virtual in-process; else calibrated from the
 * client's start-up and the provider's round trip under the current load (default lanes are dropped again when fewer
 * would get through sooner at their own time scale, or the machine is too crowded for them; given lanes are kept).
 */
export async function resolveTimeScale(
  plan: CertificationPlan,
  out: (line: string) => void,
): Promise<{ timeScale: TimeScale; parallel: number }> {
  const none = { client_start_ms: null, provider_round_trip_ms: null };
  if (plan.timeScale !== undefined) return { timeScale: { factor: plan.timeScale, source: 'flag', ...none }, parallel: plan.parallel };
  if (plan.client.kind === 'in-process') return { timeScale: { factor: 1, source: 'virtual', ...none }, parallel: plan.parallel };
  out('calibrating: client start-up and provider round trip under the current load…');
  // Given lanes are kept; else twice the cores, then the cores, are tried when the default lanes need a stretch.
  const cores = availableParallelism();
  const fewer = plan.parallelGiven ? plan.parallel : [2 * cores, cores].map((n) => Math.min(plan.parallel, n));
  const c = await calibrateLanes(plan.client.command, plan.parallel, fewer);
  return {
    timeScale: { factor: c.factor, source: 'calibrated', client_start_ms: c.clientStartMs, provider_round_trip_ms: c.providerRoundTripMs },
    parallel: c.lanes,
  };
}
