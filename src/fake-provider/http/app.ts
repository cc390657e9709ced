import { Hono } from 'hono';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import type { ProviderModule } from '../module.js';
import { bodyGuard } from './body-guard.js';
import { LOSS_HEADER, newDraft, type Ctx, type Env } from './context.js';
import { NATIVE_MOUNT, type Mount } from './mount.js';
import { problem } from './problem.js';
import { controlRoutes } from './routes/control-routes.js';
import { ProviderClosedError } from './seam/index.js';

/** X-Trace-ID / X-Worker-ID as sent (trimmed): every request that carries one has it journalled and echoed. */
function headerId(c: Ctx, name: string): string | null {
  return c.req.header(name)?.trim() || null;
}

/** Write the request's journal entry once its answer is known, and stamp the ids every answer carries. */
function journalRequest(core: ProviderCore, c: Ctx): void {
  const d = c.get('draft');
  const res = c.res;
  const retryAfter = res.headers.get('retry-after');
  core.journal.append({
    type: 'request', at: isoTime(core.clock.now()), received_at: isoTime(c.get('receivedAt')), request_id: c.get('requestId'), method: c.req.method, path: new URL(c.req.url).pathname,
    route: d.route, tenant: d.principal?.tenant ?? null, subject: d.principal?.subject ?? null, idempotency_key: d.idempotency_key,
    trace_id: c.get('traceId'), worker_id: c.get('workerId'), fingerprint: d.fingerprint, effect: d.effect, job_id: d.job_id,
    status: res.status, code: d.code, delivery: d.delivery, fault: d.fault, job_state: d.job_state,
    retry_after: retryAfter !== null && retryAfter !== '' && !Number.isNaN(Number(retryAfter)) ? Number(retryAfter) : null,
    client_ref: d.client_ref,
    ...(d.listed ? { listed: d.listed } : {}),
    ...(d.task_id !== null ? { task_id: d.task_id, task_state: d.task_state } : {}),
    // Native entries stay as they were; a dialect's requests say which wire API they came in.
    ...(d.dialect !== 'native' ? { dialect: d.dialect } : {}),
  });
}

/** The mount serving `path`: the longest matching prefix a module declared, else native. */
function mountFor(mounts: Array<{ prefix: string; mount: Mount }>, path: string): Mount {
  let best: { prefix: string; mount: Mount } | undefined;
  for (const m of mounts) {
    if ((path === m.prefix || path.startsWith(`${m.prefix}/`)) && m.prefix.length > (best?.prefix.length ?? -1)) best = m;
  }
  return best?.mount ?? NATIVE_MOUNT;
}

/**
 * The provider's HTTP app: request ids and the journal around every request, the body guard, each module's routes
 * (each behind the fault seam, http/seam/), the control API, and errors in the serving mount's shape.
 */
export function buildApp(core: ProviderCore, modules: ProviderModule[], extendControl?: Parameters<typeof controlRoutes>[1]): Hono<Env> {
  const app = new Hono<Env>();
  const mounts = modules.flatMap((m) => m.mounts ?? []);

  app.use('*', async (c, next) => {
    c.set('requestId', core.ids('req'));
    c.set('receivedAt', core.clock.now());
    c.set('traceId', headerId(c, 'x-trace-id'));
    c.set('workerId', headerId(c, 'x-worker-id'));
    c.set('draft', newDraft());
    // Chosen first, so that every answer — even the body guard's 413 — has the shape of the API it was asked in.
    const m = mounts.length ? mountFor(mounts, c.req.path) : NATIVE_MOUNT;
    c.set('mount', m);
    c.get('draft').dialect = m.dialect;
    // Catch up on everything that fell due since the last timer, so an answer never shows a stale job.
    for (const m of modules) m.tick();
    await next();
    const isControl = new URL(c.req.url).pathname.startsWith('/_control');
    if (core.isClosed()) {
      // Nothing can be recorded any more; the connection dies with the provider.
      c.res.headers.set(LOSS_HEADER, 'reset');
      return;
    }
    if (!isControl) journalRequest(core, c);
    c.res.headers.set('x-request-id', c.get('requestId'));
    const trace = c.get('traceId');
    // Echoed byte for byte; a value with non-ASCII bytes cannot be (the writer re-encodes it), so it is only journalled.
    if (trace && /^[\x20-\x7e\t]+$/.test(trace)) c.res.headers.set('x-trace-id', trace);
    const loss = c.get('draft').loss;
    if (loss) c.res.headers.set(LOSS_HEADER, loss);
  });

  app.use('*', bodyGuard());

  for (const m of modules) m.routes(app);

  if (core.options.control) {
    app.route('/_control', controlRoutes(core, (a) => {
      extendControl?.(a);
      for (const m of modules) m.control?.(a);
    }));
  }

  app.notFound((c) => problem(c, 404, 'not_found', `no route for ${c.req.method} ${new URL(c.req.url).pathname}`));
  app.onError((err, c) => {
    // Stopped mid-request (the harness restarts providers): whatever failed, the connection just dies.
    if (err instanceof ProviderClosedError || core.isClosed()) return new Response(null, { status: 503, headers: { [LOSS_HEADER]: 'reset' } });
    // Never a stack trace on the wire; the message goes to the operator's console.
    console.error(`[jobproof] ${c.req.method} ${c.req.url}: ${(err as Error)?.stack ?? err}`);
    return problem(c, 500, 'internal_error', 'the provider failed unexpectedly; see its console');
  });
  return app;
}
