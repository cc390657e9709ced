import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { randomBytes } from 'node:crypto';
import { cpuMsOf } from './common.js';
import { TOKEN } from './http-targets.js';

export type Workload = 'status' | 'create';

export interface LoadSpec {
  url: string;
  workload: Workload;
  /** Job ids the status reads rotate through (the comparison targets answer any id). */
  ids: readonly string[];
  connections?: number;
  /** Seconds; or `amount` requests. */
  duration?: number;
  amount?: number;
  /** The server's pid: its CPU time per request is measured too (user+system; load-independent, unlike req/s). */
  pid?: number;
}

export interface LoadResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationS: number;
  /** Server CPU µs per request (when `pid` was given). */
  cpuUs?: number;
}

const CREATE_BODY = JSON.stringify({ kind: 'report', input: {} });

/**
 * One autocannon run: keep-alive (autocannon's default), `connections` connections, no pipelining. Status reads
 * rotate through `ids`; creates carry a fresh Idempotency-Key each, so every one is a real create.
 */
export function load(spec: LoadSpec): Promise<LoadResult> {
  let i = 0;
  const prefix = randomBytes(4).toString('hex');
  const request: AutocannonRequest =
    spec.workload === 'status'
      ? { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/jobs/${spec.ids[i++ % spec.ids.length]}` }) }
      : {
          method: 'POST',
          path: '/v1/jobs',
          body: CREATE_BODY,
          setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `bench-${prefix}-${i++}` } }),
        };
  const cpu0 = spec.pid ? cpuMsOf(spec.pid) : NaN;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url,
        connections: spec.connections ?? 50,
        pipelining: 1,
        timeout: 10,
        ...(spec.amount ? { amount: spec.amount } : { duration: spec.duration ?? 5 }),
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        requests: [request],
      },
      (err: Error | null, r: AutocannonResult) => {
        if (err) return reject(err);
        const total = r['2xx'] + r.non2xx;
        resolve({
          rps: r.duration > 0 ? total / r.duration : NaN,
          p50Ms: r.latency.p50,
          p99Ms: r.latency.p99,
          requests: total,
          non2xx: r.non2xx,
          errors: r.errors,
          timeouts: r.timeouts,
          durationS: r.duration,
          ...(spec.pid && total > 0 ? { cpuUs: Math.round(((cpuMsOf(spec.pid) - cpu0) * 1000) / total) } : {}),
        });
      },
    );
  });
}
