import { Agent, request } from 'node:http';
import { median } from './common.js';
import { TOKEN } from './http-targets.js';

export interface ProbeResult {
  requests: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  non2xx: number;
}

function pct(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Status-read latency in microseconds, one request at a time on one keep-alive connection. autocannon's histogram
 * counts whole milliseconds, so at ~3 ms one step is already +33 %; and its p50 under 50 connections is mostly the
 * queue in front of the server. One request at a time measures what a request costs the server at that store size,
 * with nothing queued in front of it.
 */
export async function probeLatency(url: string, ids: readonly string[], requests: number): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname, port } = new URL(url);
  const took: number[] = [];
  let non2xx = 0;
  try {
    for (let i = 0; i < requests; i++) {
      const path = `/v1/jobs/${ids[(i * 7919) % ids.length]}`;
      const t0 = process.hrtime.bigint();
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host: hostname, port, path, agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        });
        req.once('error', reject);
        req.end();
      });
      took.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (status < 200 || status > 299) non2xx++;
    }
  } finally {
    agent.destroy();
  }
  const sorted = [...took].sort((a, b) => a - b);
  return { requests, p50Us: Math.round(median(sorted)), p90Us: Math.round(pct(sorted, 90)), p99Us: Math.round(pct(sorted, 99)), non2xx };
}
