import { availableParallelism } from 'node:os';
import { calibrateLanes } from '../calibrate.js';
import type { TimeScale } from '../report/schema.js';
import type { CertificationPlan } from './plan.js';

/**
 * The time scale a certification runs under, and its lanes: given; virtual in-process; else calibrated from the
 * client's start-up and the provider's round trip under the current load (lanes past the cores are dropped again
 * when the machine is too crowded for them; given lanes are kept).
 */
export async function resolveTimeScale(
  plan: CertificationPlan,
  out: (line: string) => void,
): Promise<{ timeScale: TimeScale; parallel: number }> {
  const none = { client_start_ms: null, provider_round_trip_ms: null };
  if (plan.timeScale !== undefined) return { timeScale: { factor: plan.timeScale, source: 'flag', ...none }, parallel: plan.parallel };
  if (plan.client.kind === 'in-process') return { timeScale: { factor: 1, source: 'virtual', ...none }, parallel: plan.parallel };
  out('calibrating: client start-up and provider round trip under the current load…');
  const fewer = plan.parallelGiven ? plan.parallel : Math.min(plan.parallel, availableParallelism());
  const c = await calibrateLanes(plan.client.command, plan.parallel, fewer);
  return {
    timeScale: { factor: c.factor, source: 'calibrated', client_start_ms: c.clientStartMs, provider_round_trip_ms: c.providerRoundTripMs },
    parallel: c.lanes,
  };
}
