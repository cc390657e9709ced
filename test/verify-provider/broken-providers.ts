/**
 * Deliberately broken providers for verify-provider's own tests: each is the real fake provider behind a thin Hono
 * front that makes exactly one mistake. The real provider's logic is never edited.
 */
import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { Provider } from '../../src/fake-provider/index.js';
import { mergePatch } from '../../src/fake-provider/tasks/index.js';

type Front = (c: Context, p: Provider) => Promise<Response | undefined>;

export interface Broken {
  name: string;
  /** The check that must catch it. */
  check: string;
  /** Other checks the same mistake breaks by its nature (a provider that forgets keys cannot see a duplicate in flight either). */
  alsoFails?: string[];
  wrap(p: Provider): Hono;
}

/** Forward a (possibly rewritten) request to the real provider app. */
function pass(p: Provider, req: Request, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  const headers = new Headers(req.headers);
  for (const [k, v] of Object.entries(init.headers ?? {})) headers.set(k, v);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return Promise.resolve(
    p.app.fetch(new Request(req.url, { method: req.method, headers, body: hasBody ? (init.body ?? undefined) : undefined })),
  );
}

function front(fn: Front): (p: Provider) => Hono {
  return (p) => {
    const app = new Hono();
    app.all('*', async (c) => {
      const body = c.req.method === 'GET' || c.req.method === 'HEAD' ? undefined : await c.req.raw.clone().text();
      const answer = await fn(c, p);
      return answer ?? pass(p, c.req.raw, { body });
    });
    return app;
  };
}

const path = (c: Context) => new URL(c.req.url).pathname;
const tokenOf = (c: Context) => /^Bearer\s+(\S+)/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';

async function withJson(res: Response, edit: (j: any) => any): Promise<Response> {
  const j = JSON.parse(await res.text());
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(edit(j)), { status: res.status, headers });
}

let seq = 0;
const reads = new Map<string, number>();
const applyKeys = new Set<string>();

export const BROKEN: Broken[] = [
  {
    name: 'a replay creates a new job',
    check: 'create.replay',
    alsoFails: ['create.in-flight-409', 'create.changed-body-422'],
    wrap: front(async (c, p) => {
      if (c.req.method !== 'POST' || path(c) !== '/v1/jobs' || !c.req.header('idempotency-key')) return undefined;
      return pass(p, c.req.raw, {
        headers: { 'idempotency-key': `${c.req.header('idempotency-key')}-${++seq}` },
        body: await c.req.raw.clone().text(),
      });
    }),
  },
  {
    name: 'no 422 on a changed body (the body is part of the key)',
    check: 'create.changed-body-422',
    wrap: front(async (c, p) => {
      if (c.req.method !== 'POST' || path(c) !== '/v1/jobs' || !c.req.header('idempotency-key')) return undefined;
      const body = await c.req.raw.clone().text();
      const h = createHash('sha256').update(body).digest('hex').slice(0, 12);
      return pass(p, c.req.raw, { headers: { 'idempotency-key': `${c.req.header('idempotency-key')}-${h}` }, body });
    }),
  },
  {
    name: '403 instead of 404 across tenants',
    check: 'tenancy.isolated-404',
    wrap: front(async (c, p) => {
      if (!path(c).startsWith('/v1/jobs/')) return undefined;
      const res = await pass(p, c.req.raw, { body: await c.req.raw.clone().text() });
      if (res.status !== 404) return res;
      return withJson(res, (j) => ({
        ...j,
        type: 'https://jobproof.dev/problems/forbidden',
        title: 'Forbidden',
        status: 403,
        code: 'forbidden',
      })).then((r) => new Response(r.body, { status: 403, headers: r.headers }));
    }),
  },
  {
    name: 'a final state that changes',
    check: 'job.final-state-stable',
    wrap: front(async (c, p) => {
      if (c.req.method !== 'GET' || !/^\/v1\/jobs\/[^/]+$/.test(path(c))) return undefined;
      const res = await pass(p, c.req.raw);
      if (res.status !== 200) return res;
      return withJson(res, (j) => {
        if (j.state !== 'succeeded') return j;
        const n = (reads.get(j.job_id) ?? 0) + 1;
        reads.set(j.job_id, n);
        return n >= 3 ? { ...j, state: 'expired', result: null } : j;
      });
    }),
  },
  {
    name: 'approval accepted from a submitter (the reviewer role is not checked)',
    check: 'task.review-by-submitter',
    wrap: front(async (c, p) => {
      if (c.req.method !== 'POST' || !/\/review$/.test(path(c))) return undefined;
      const token = tokenOf(c);
      const before = p.core.tokens.tokens[token];
      if (!before || before.roles.includes('reviewer')) return undefined;
      p.core.tokens.tokens[token] = { ...before, roles: [...before.roles, 'reviewer'] };
      try {
        return await pass(p, c.req.raw, { body: await c.req.raw.clone().text() });
      } finally {
        p.core.tokens.tokens[token] = before;
      }
    }),
  },
  {
    name: 'self-approval (the initiator may approve its own task)',
    check: 'task.review-by-initiator',
    wrap: front(async (c, p) => {
      const m = /^\/v1\/tasks\/([^/]+)\/review$/.exec(path(c));
      if (c.req.method !== 'POST' || !m) return undefined;
      const me = p.core.tokens.tokens[tokenOf(c)];
      const task = p.tasks.tasks.get(m[1]!);
      if (!me || !task || task.initiator !== me.subject || !me.roles.includes('reviewer')) return undefined;
      // Recorded under another reviewer: the self-review rule is skipped.
      return pass(p, c.req.raw, { headers: { authorization: 'Bearer reviewer-token' }, body: await c.req.raw.clone().text() });
    }),
  },
  {
    name: 'approval of a stale proposal (any proposal_version is taken as the current one)',
    check: 'task.review-stale-proposal',
    wrap: front(async (c, p) => {
      const m = /^\/v1\/tasks\/([^/]+)\/review$/.exec(path(c));
      if (c.req.method !== 'POST' || !m) return undefined;
      const task = p.tasks.tasks.get(m[1]!);
      const body = await c.req.raw.clone().text();
      let j: any;
      try {
        j = JSON.parse(body);
      } catch {
        return undefined;
      }
      if (!task?.result || typeof j !== 'object' || j === null) return undefined;
      return pass(p, c.req.raw, { body: JSON.stringify({ ...j, proposal_version: task.result.proposal.proposal_version }) });
    }),
  },
  {
    name: 'apply twice on a retried key',
    check: 'task.apply-retry',
    alsoFails: ['task.lost-apply-answer'],
    wrap: front(async (c, p) => {
      const m = /^\/v1\/tasks\/([^/]+)\/apply$/.exec(path(c));
      if (c.req.method !== 'POST' || !m) return undefined;
      const id = `${m[1]}:${c.req.header('idempotency-key')}`;
      const res = await pass(p, c.req.raw, { body: await c.req.raw.clone().text() });
      const task = p.tasks.tasks.get(m[1]!);
      if (res.status === 200 && applyKeys.has(id) && task?.result) {
        // The retry executes the change again.
        const o = p.tasks.objects.get(task.tenant, task.object_ref)!;
        p.tasks.objects.write(
          task.tenant,
          task.object_ref,
          mergePatch(o.data, task.result.proposal.change.patch) as Record<string, unknown>,
          Date.now(),
        );
      }
      applyKeys.add(id);
      return res;
    }),
  },
];
