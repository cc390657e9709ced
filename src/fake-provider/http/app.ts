import { Hono } from 'hono';
import { openApiDocument } from '../../contract/openapi/document.js';
import type { ProviderControl } from '../control.js';
import type { ProviderCore } from '../core.js';
import type { PrefixMount, ProviderModule } from '../module.js';
import { MAX_BODY_BYTES } from './body.js';
import { bodyGuard } from './body-guard.js';
import { isLean, retryAfterOf, setAnswerHeader } from './answer.js';
import { LOSS_HEADER, newDraft, type Env } from './context.js';
import { NATIVE_MOUNT, type Mount } from './mount.js';
import { problem } from './problem.js';
import { headerId, journalPath, journalRequest } from './request-entry.js';
import { controlRoutes } from './routes/control-routes.js';
import { SharedTableRouter } from './shared-router.js';
import { ProviderClosedError } from './seam/index.js';

let openApi: string | undefined;
function openApiText(): string {
  openApi ??= JSON.stringify(openApiDocument(), null, 2);
  return openApi;
}

/** The ids every answer carries; a trace id with non-ASCII bytes cannot be echoed (the writer re-encodes it). */
function stampFor(m: Mount, requestId: string, trace: string | null): Record<string, string> {
  const stamp: Record<string, string> = { 'x-request-id': requestId };
  if (m.requestIdHeader) stamp[m.requestIdHeader] = requestId;
  // Echoed byte for byte, when it can be.
  if (trace && /^[\x20-\x7e\t]+$/.test(trace)) stamp['x-trace-id'] = trace;
  return stamp;
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
  control: ProviderControl,
  mountBeforeJournal?: (app: Hono<Env>) => void,
  shortLived = false,
): Hono<Env> {
  // A provider that lives for one in-process schedule answers a few dozen requests: building the default router's
  // matcher for each would cost more than they do, so its app shares one built for the same route table.
  const app = new Hono<Env>(shortLived ? { router: new SharedTableRouter() } : {});
  // The dashboard (src/fake-provider/dashboard/): ahead of the journal middleware, so its traffic is never journalled.
  mountBeforeJournal?.(app);
  const mounts = modules.flatMap((m) => m.mounts ?? []);

  // The API description, before the journal middleware: not journalled, no faults, no token (it describes, it does nothing).
  app.get('/openapi.json', () => new Response(openApiText(), { headers: { 'content-type': 'application/json' } }));

  app.use('*', async (c, next) => {
    const requestId = core.ids('req');
    const traceId = headerId(c, 'x-trace-id');
    const draft = newDraft();
    c.set('requestId', requestId);
    c.set('receivedAt', core.clock.now());
    c.set('traceId', traceId);
    c.set('workerId', headerId(c, 'x-worker-id'));
    c.set('draft', draft);
    // Chosen first, so that every answer — even the body guard's 413 — has the shape of the API it was asked in.
    const m = (mounts.length ? prefixFor(mounts, c.req.path)?.mount : undefined) ?? NATIVE_MOUNT;
    c.set('mount', m);
    draft.dialect = m.dialect;
    const stamp = stampFor(m, requestId, traceId);
    c.set('stamp', stamp);
    // Every journalled request writes (its entry), so it joins the turn's transaction from the start: its reads then
    // share the turn's snapshot instead of each taking the WAL read lock of its own (~10 µs a statement on a file).
    core.group.join();
    // Until its entry is written: a close() in between journals it with the changes it made (request-entry.ts).
    core.inFlight.add(c);
    try {
      // Catch up on everything that fell due since the last timer, so an answer never shows a stale job.
      for (const mod of modules) mod.tick();
      await next();
    } finally {
      // The entry (below) follows in the same microtask: no close() can come in between.
      core.inFlight.delete(c);
    }
    const res = c.res;
    if (core.isClosed()) {
      // Nothing can be recorded any more (close() journalled it if it had executed); the connection dies with the provider.
      setAnswerHeader(res, LOSS_HEADER, 'reset');
      return;
    }
    const path = journalPath(c);
    if (!path.startsWith('/_control')) journalRequest(core, c, path, res.status, retryAfterOf(res));
    // Answers built by json/problem carry the stamp already (http/answer.ts); any other gets it here.
    if (!isLean(res)) for (const k in stamp) res.headers.set(k, stamp[k]!);
    if (draft.loss) setAnswerHeader(res, LOSS_HEADER, draft.loss);
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
      controlRoutes(core, control, (a) => {
        for (const m of modules) m.control?.(a, control);
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
