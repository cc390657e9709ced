import { call, type HttpOptions } from '../http.js';

export type TaskCallOutcome =
  // biome-ignore lint/suspicious/noExplicitAny: a provider's JSON answer, read field by field by the worker
  { kind: 'answer'; status: number; json: any; retryAfterMs: number | null; replayed: boolean } | { kind: 'no_answer'; detail: string };

/**
 * One request with a deadline on the injected clock, through the client's one HTTP wrapper (../http.ts); a hung or
 * reset answer comes back as `no_answer` (ambiguous).
 */
export async function taskCall(
  o: HttpOptions,
  spec: { method: 'GET' | 'POST'; path: string; body?: unknown; idempotencyKey?: string; traceId: string },
  signal?: AbortSignal,
): Promise<TaskCallOutcome> {
  const r = await call(o, spec, signal);
  if (r.kind === 'no_answer') return { kind: 'no_answer', detail: r.detail };
  return {
    kind: 'answer',
    status: r.status,
    json: r.json,
    retryAfterMs: r.retryAfterMs,
    replayed: r.headers.get('idempotent-replayed') === 'true',
  };
}

export function codeOf(o: TaskCallOutcome): string | null {
  return o.kind === 'answer' && o.json && typeof o.json.code === 'string' ? o.json.code : null;
}
