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

/**
 * Calibrate for `lanes` client starts at once; if the machine is too crowded for that many (the stretch they need is
 * past MAX_TIME_SCALE, so a capped scale would let the load decide verdicts), calibrate again for `fewer` lanes and
 * run with those.
 */
export async function calibrateLanes(command: string, lanes: number, fewer: number, rounds = 3): Promise<Calibration & { lanes: number }> {
  const c = await calibrate(command, lanes, rounds);
  if (!c.capped || fewer >= lanes) return { ...c, lanes };
  return { ...(await calibrate(command, fewer, rounds)), lanes: fewer };
}
