import { Hono } from 'hono';
import { openApiDocument } from '../../contract/openapi/document.js';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import type { PrefixMount, ProviderModule } from '../module.js';
import { MAX_BODY_BYTES } from './body.js';
import { bodyGuard } from './body-guard.js';
import { LOSS_HEADER, newDraft, type Ctx, type Env } from './context.js';
import { NATIVE_MOUNT } from './mount.js';
import { problem } from './problem.js';
import { controlRoutes } from './routes/control-routes.js';
import { ProviderClosedError } from './seam/index.js';

let openApi: string | undefined;
function openApiText(): string {
  openApi ??= JSON.stringify(openApiDocument(), null, 2);
  return openApi;
}

/** X-Trace-ID / X-Worker-ID as sent (trimmed): every request that carries one has it journalled and echoed. */
function headerId(c: Ctx, name: string): string | null {
  return c.req.header(name)?.trim() || null;
}

/** `X-Lease-Token` (client-protocol.md "Lease tokens"): a fencing token is a whole number; anything else is none. */
function leaseToken(c: Ctx): number | null {
  const v = headerId(c, 'x-lease-token');
  return v !== null && /^\d{1,15}$/.test(v) ? Number(v) : null;
}

/** Write the request's journal entry once its answer is known, and stamp the ids every answer carries. */
function journalRequest(core: ProviderCore, c: Ctx, path: string): void {
  const d = c.get('draft');
  const res = c.res;
  const retryAfter = res.headers.get('retry-after');
  core.journal.append({
    type: 'request',
    at: isoTime(core.clock.now()),
    received_at: isoTime(c.get('receivedAt')),
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
    status: res.status,
    code: d.code,
    delivery: d.delivery,
    fault: d.fault,
    job_state: d.job_state,
    retry_after: retryAfter !== null && retryAfter !== '' && !Number.isNaN(Number(retryAfter)) ? Number(retryAfter) : null,
    client_ref: d.client_ref,
    // Only when sent: the journal's compact layout stores optional fields in `extra`, and most requests carry none.
    ...(leaseToken(c) !== null ? { lease_token: leaseToken(c) } : {}),
    ...(d.listed ? { listed: d.listed } : {}),
    ...(d.task_id !== null ? { task_id: d.task_id, task_state: d.task_state } : {}),
    // Native entries stay as they were; a dialect's requests say which wire API they came in.
    ...(d.dialect !== 'native' ? { dialect: d.dialect } : {}),
    ...(d.custom_ids ? { custom_ids: d.custom_ids } : {}),
    ...(d.file_id ? { file_id: d.file_id } : {}),
    ...(d.served_sha256 ? { served_sha256: d.served_sha256 } : {}),
  });
}

/** The prefix mount serving `path`: the longest matching prefix a module declared, else none (native). */
function prefixFor(mounts: PrefixMount[], path: string): PrefixMount | undefined {
  let best: PrefixMount | undefined;
  for (const m of mounts) {
    if ((path === m.prefix || path.startsWith(`${m.prefix}/`)) && m.prefix.length > (best?.prefix.length ?? -1)) best = m;
  }
  return best;
}

/**
 * The provider's HTTP app: request ids and the journal around every request, the body guard, each module's routes
 * (each behind the fault seam, http/seam/), the control API, and errors in the serving mount's shape.
 */
export function buildApp(
  core: ProviderCore,
  modules: ProviderModule[],
  extendControl?: Parameters<typeof controlRoutes>[1],
  mountBeforeJournal?: (app: Hono<Env>) => void,
): Hono<Env> {
  const app = new Hono<Env>();
  // The dashboard (src/fake-provider/dashboard/): ahead of the journal middleware, so its traffic is never journalled.
  mountBeforeJournal?.(app);
  const mounts = modules.flatMap((m) => m.mounts ?? []);

  // The API description, before the journal middleware: not journalled, no faults, no token (it describes, it does nothing).
  app.get('/openapi.json', () => new Response(openApiText(), { headers: { 'content-type': 'application/json' } }));

  app.use('*', async (c, next) => {
    c.set('requestId', core.ids('req'));
    c.set('receivedAt', core.clock.now());
    c.set('traceId', headerId(c, 'x-trace-id'));
    c.set('workerId', headerId(c, 'x-worker-id'));
    c.set('draft', newDraft());
    // Chosen first, so that every answer — even the body guard's 413 — has the shape of the API it was asked in.
    const m = (mounts.length ? prefixFor(mounts, c.req.path)?.mount : undefined) ?? NATIVE_MOUNT;
    c.set('mount', m);
    c.get('draft').dialect = m.dialect;
    // Catch up on everything that fell due since the last timer, so an answer never shows a stale job.
    for (const m of modules) m.tick();
    await next();
    const path = new URL(c.req.url).pathname;
    const isControl = path.startsWith('/_control');
    if (core.isClosed()) {
      // Nothing can be recorded any more; the connection dies with the provider.
      c.res.headers.set(LOSS_HEADER, 'reset');
      return;
    }
    if (!isControl) journalRequest(core, c, path);
    c.res.headers.set('x-request-id', c.get('requestId'));
    if (m.requestIdHeader) c.res.headers.set(m.requestIdHeader, c.get('requestId'));
    const trace = c.get('traceId');
    // Echoed byte for byte; a value with non-ASCII bytes cannot be (the writer re-encodes it), so it is only journalled.
    if (trace && /^[\x20-\x7e\t]+$/.test(trace)) c.res.headers.set('x-trace-id', trace);
    const loss = c.get('draft').loss;
    if (loss) c.res.headers.set(LOSS_HEADER, loss);
  });

  // A dialect carries whole batches in one body: its prefix may allow more than the native 1 MiB.
  app.use(
    '*',
    bodyGuard((path) => prefixFor(mounts, path)?.maxBodyBytes ?? MAX_BODY_BYTES),
  );

  for (const m of modules) m.routes(app);

  if (core.options.control) {
    app.route(
      '/_control',
      controlRoutes(core, (a) => {
        extendControl?.(a);
        for (const m of modules) m.control?.(a);
      }),
    );
  }

  app.notFound((c) => problem(c, 404, 'not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((err, c) => {
    // Stopped mid-request (the harness restarts providers): whatever failed, the connection just dies.
    if (err instanceof ProviderClosedError || core.isClosed())
      return new Response(null, { status: 503, headers: { [LOSS_HEADER]: 'reset' } });
    // Never a stack trace on the wire; the message goes to the operator's console.
    console.error(`[jobproof] ${c.req.method} ${c.req.url}: ${(err as Error)?.stack ?? err}`);
    return problem(c, 500, 'internal_error', 'the provider failed unexpectedly; see its console');
  });
  return app;
}
