import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProvider, serve } from '../fake-provider/index.js';
import { callClient } from './runner/process/spawn-client.js';

/**
 * What the catalog's times assume (scale 1): a client command that starts and answers a `show` within 350 ms, and a
 * provider round trip over loopback within 25 ms. Measured on a quiet 2-core machine the reference client starts in
 * about 200 ms and a round trip takes 1–3 ms, so scale 1 has room on a quiet machine and none to spare under load.
 */
export const START_BUDGET_MS = 350;
export const ROUND_TRIP_BUDGET_MS = 25;
export const MAX_TIME_SCALE = 10;

export interface Calibration {
  factor: number;
  clientStartMs: number;
  providerRoundTripMs: number;
  /** The machine needed more stretch than MAX_TIME_SCALE: the factor is the cap, not what was measured. */
  capped: boolean;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * How far apart a catalog's lanes take their first scenario: `lanes` client starts spread over one start budget, so
 * the run does not open with all of them at once. The calibration still starts its `lanes` clients at once: spread
 * out, it measured 363 ms (1.1×) beside other work while the 8 lanes' own workers then made starts take over 1.3 s
 * (two cases failed as never acted); all at once is the crowd that covers the lanes' running workers too.
 */
export function laneStaggerMs(lanes: number): number {
  return lanes > 1 ? Math.floor(START_BUDGET_MS / lanes) : 0;
}

const needFor = (clientStartMs: number, providerRoundTripMs: number) =>
  Math.max(1, clientStartMs / START_BUDGET_MS, providerRoundTripMs / ROUND_TRIP_BUDGET_MS);

/** The time scale for measured start-up and round trip: the larger need wins, never below 1, rounded up to 0.1. */
export function timeScaleFor(clientStartMs: number, providerRoundTripMs: number): number {
  return Math.min(MAX_TIME_SCALE, Math.ceil(needFor(clientStartMs, providerRoundTripMs) * 10 - 1e-9) / 10);
}

/**
 * Measure, under the machine's current load, how long the client command takes to start and answer (`show` of an
 * unknown operation, `lanes` at once as the catalog runs them) and how long a provider round trip takes; the
 * catalog's clock is then stretched by what the client needs, so that load changes how long a certification takes,
 * not its verdicts.
 */
export async function calibrate(command: string, lanes = 1, rounds = 3): Promise<Calibration> {
  const dir = mkdtempSync(join(tmpdir(), 'jobproof-calibrate-'));
  const provider = createProvider({ db: ':memory:' });
  const server = await serve(provider, { port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const rtts: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      const res = await fetch(`${url}/v1/jobs/job_calibration`, { headers: { authorization: 'Bearer dev-token' } });
      await res.arrayBuffer();
      if (i > 0) rtts.push(performance.now() - t);
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      JOBPROOF_PROVIDER_URL: url,
      JOBPROOF_TOKEN: 'dev-token',
      JOBPROOF_STATE: join(dir, 'state'),
      JOBPROOF_WORKER_ID: 'calibration',
      JOBPROOF_LEASE_MS: '1000',
    };
    delete env.JOBPROOF_WEBHOOK_PORT;
    // One start first: the first start of a command reads its files from disk; the catalog's hundreds of starts do not.
    await callClient(command, ['show', 'jobproof-calibration'], env, null);
    const starts: number[] = [];
    for (let r = 0; r < rounds; r++) {
      starts.push(
        ...(await Promise.all(
          Array.from({ length: Math.max(1, lanes) }, async () => {
            const t = performance.now();
            await callClient(command, ['show', 'jobproof-calibration'], env, null);
            return performance.now() - t;
          }),
        )),
      );
    }
    const clientStartMs = Math.round(median(starts));
    const providerRoundTripMs = Math.round(median(rtts) * 10) / 10;
    return {
      factor: timeScaleFor(clientStartMs, providerRoundTripMs),
      clientStartMs,
      providerRoundTripMs,
      capped: needFor(clientStartMs, providerRoundTripMs) > MAX_TIME_SCALE,
    };
  } finally {
    await server.close();
    provider.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** More lanes are taken only when they promise at least this much more pace than the fewer (their load is unmeasured). */
export const MORE_LANES_GAIN = 1.25;

export type LaneCalibration = Calibration & { lanes: number };

/**
 * The more lanes against the fewer that have room: lanes ÷ time scale is how fast each gets through the catalog (every
 * scenario's time is stretched by the scale); the more lanes win only by MORE_LANES_GAIN and only uncapped.
 */
export function pickLanes(most: LaneCalibration, fewer: LaneCalibration): LaneCalibration {
  const pace = (c: LaneCalibration) => c.lanes / c.factor;
  return !most.capped && pace(most) >= pace(fewer) * MORE_LANES_GAIN ? most : fewer;
}

/**
 * Calibrate for `lanes` client starts at once; if they need any stretch, calibrate for each of `fewer` (most first)
 * until one has room (its scale is not capped: a capped scale would let the load decide verdicts), and run with those
 * unless the `lanes` get through the catalog clearly sooner even stretched (`pickLanes`). When none has room, the
 * fewest lanes at the cap. With fewer to fall back on, one burst of `lanes` starts comes first: when even that is too
 * slow for the lanes to beat the next fewer at 1×, the full calibration of the lanes is skipped (it cost 2–3 s of
 * CPU a run, for lanes that could not be taken).
 */
export async function calibrateLanes(command: string, lanes: number, fewer: number | number[], rounds = 3): Promise<LaneCalibration> {
  const next = [fewer].flat().filter((x, i, a) => x < lanes && a.indexOf(x) === i);
  if (next.length && rounds > 1) {
    const probe = { ...(await calibrate(command, lanes, 1)), lanes };
    // Too slow to beat the next fewer even if those run at 1×: not worth the full calibration.
    if (probe.capped || probe.lanes / probe.factor < next[0]! * MORE_LANES_GAIN) return fallBack(command, probe, next, rounds, false);
  }
  const most = { ...(await calibrate(command, lanes, rounds)), lanes };
  if (most.factor === 1 && !most.capped) return most;
  return fallBack(command, most, next, rounds, true);
}

/** The first of `next` with room (against `most` when it may still win), else the last tried at the cap. */
async function fallBack(
  command: string,
  most: LaneCalibration,
  next: number[],
  rounds: number,
  mostMayWin: boolean,
): Promise<LaneCalibration> {
  let last = most;
  for (const n of next) {
    last = { ...(await calibrate(command, n, rounds)), lanes: n };
    if (!last.capped) return mostMayWin ? pickLanes(most, last) : last;
  }
  return last;
}
