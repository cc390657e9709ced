import type { ProviderCore } from '../core.js';
import type { Ctx } from './context.js';

/** X-Trace-ID / X-Worker-ID as sent (trimmed): every request that carries one has it journalled and echoed. */
export function headerId(c: Ctx, name: string): string | null {
  return c.req.header(name)?.trim() || null;
}

/** `X-Lease-Token` (client-protocol.md "Lease tokens"): a fencing token is a whole number; anything else is none. */
function leaseToken(c: Ctx): number | null {
  const v = headerId(c, 'x-lease-token');
  return v !== null && /^\d{1,15}$/.test(v) ? Number(v) : null;
}

/** The request's path as the journal records it: undecoded (Hono's `c.req.path` decodes percent-escapes). */
export function journalPath(c: Ctx): string {
  return c.req.url.includes('%') ? new URL(c.req.url).pathname : c.req.path;
}

/** Write the request's journal entry once its answer is known (`retryAfter`: the answer's Retry-After header). */
export function journalRequest(core: ProviderCore, c: Ctx, path: string, status: number, retryAfter: string | null): void {
  const d = c.get('draft');
  const lease = leaseToken(c);
  core.journal.appendRequest({
    at: core.clock.now(),
    received_at: c.get('receivedAt'),
    request_id: c.get('requestId'),
    method: c.req.method,
    path,
    route: d.route,
    tenant: d.principal?.tenant ?? null,
    subject: d.principal?.subject ?? null,
    idempotency_key: d.idempotency_key,
    trace_id: c.get('traceId'),
    worker_id: c.get('workerId'),
    fingerprint: d.fingerprint,
    effect: d.effect,
    job_id: d.job_id,
    status,
    code: d.code,
    delivery: d.delivery,
    fault: d.fault,
    job_state: d.job_state,
    retry_after: retryAfter !== null && retryAfter !== '' && !Number.isNaN(Number(retryAfter)) ? Number(retryAfter) : null,
    client_ref: d.client_ref,
    // Only when sent: the journal's compact layout stores optional fields in `extra`, and most requests carry none.
    ...(lease !== null ? { lease_token: lease } : {}),
    ...(d.listed ? { listed: d.listed } : {}),
    ...(d.task_id !== null ? { task_id: d.task_id, task_state: d.task_state } : {}),
    // Native entries stay as they were; a dialect's requests say which wire API they came in.
    ...(d.dialect !== 'native' ? { dialect: d.dialect } : {}),
    ...(d.custom_ids ? { custom_ids: d.custom_ids } : {}),
    ...(d.file_id ? { file_id: d.file_id } : {}),
    ...(d.served_sha256 ? { served_sha256: d.served_sha256 } : {}),
    // A held answer the client hung up on was lost the way a hang is: it learned so only at its own timeout.
    ...(d.delivery === 'lost' ? { lost_by: d.loss ?? 'hang' } : {}),
  });
}
