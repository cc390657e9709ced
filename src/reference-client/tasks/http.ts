import type { Clock } from '../../lib/clock.js';

export interface TaskHttpOptions {
  fetch: typeof fetch;
  clock: Clock;
  providerUrl: string;
  token: string;
  workerId: string;
  timeoutMs: number;
}

export type TaskCallOutcome =
  // biome-ignore lint/suspicious/noExplicitAny: a provider's JSON answer, read field by field by the worker
  | { kind: 'answer'; status: number; json: any; retryAfterMs: number | null; replayed: boolean }
  | { kind: 'no_answer'; detail: string };

function retryAfterMs(v: string | null, now: number): number | null {
  if (v === null) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** One request with a deadline on the injected clock; a hung or reset answer comes back as `no_answer` (ambiguous). */
export async function taskCall(
  o: TaskHttpOptions,
  spec: { method: 'GET' | 'POST'; path: string; body?: unknown; idempotencyKey?: string; traceId: string },
  signal?: AbortSignal,
): Promise<TaskCallOutcome> {
  const controller = new AbortController();
  const timer = o.clock.setTimeout(() => controller.abort(new Error('request timed out')), o.timeoutMs);
  const onOuter = () => controller.abort(new Error('worker stopping'));
  signal?.addEventListener('abort', onOuter, { once: true });
  const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
  aborted.catch(() => undefined);
  try {
    const headers: Record<string, string> = {
      authorization: `Bearer ${o.token}`, 'x-trace-id': spec.traceId, 'x-worker-id': o.workerId, accept: 'application/json, application/problem+json',
    };
    if (spec.idempotencyKey) headers['idempotency-key'] = spec.idempotencyKey;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const res = await Promise.race([o.fetch(new URL(spec.path, o.providerUrl).toString(), { method: spec.method, headers, body, signal: controller.signal }), aborted]);
    const text = await Promise.race([res.text(), aborted]);
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { kind: 'answer', status: res.status, json, retryAfterMs: retryAfterMs(res.headers.get('retry-after'), o.clock.now()), replayed: res.headers.get('idempotent-replayed') === 'true' };
  } catch (err) {
    return { kind: 'no_answer', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    o.clock.clearTimeout(timer);
    signal?.removeEventListener('abort', onOuter);
  }
}

export function codeOf(o: TaskCallOutcome): string | null {
  return o.kind === 'answer' && o.json && typeof o.json.code === 'string' ? o.json.code : null;
}
