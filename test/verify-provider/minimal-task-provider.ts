/**
 * A small task provider written from tasks-api.md alone, with no jobproof control API and nothing of the fake
 * provider's code: what a team's own service looks like to verify-provider. It has its own admin route to change an
 * object (`POST /admin/objects/{ref}/touch`, admin token), the kind of hook a pilot plan's `change_object` names.
 * In memory; drafting finishes 30 ms after creation, checked lazily on every request. Where tasks-api.md leaves a
 * choice to the provider (event names, where a fact sits in an answer), `choices` says which it makes.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { canonicalJson } from '../../src/lib/canonical-json.js';
import { NAMED, type Choices } from './task-provider-choices.js';

type Role = 'submitter' | 'reviewer';
export interface Who {
  tenant: string;
  subject: string;
  roles: Role[];
}
interface Obj {
  tenant: string;
  ref: string;
  version: number;
  data: Record<string, unknown>;
  updated_at: string;
}
interface Task {
  task_id: string;
  tenant: string;
  type: string;
  state: string;
  object_ref: string;
  object_version: number;
  initiator: string;
  input: Record<string, unknown>;
  created_ms: number;
  created_at: string;
  updated_at: string;
  result: { draft: Record<string, unknown>; proposal: Record<string, any> } | null;
  review: Record<string, any> | null;
  application: Record<string, any> | null;
  error: null;
  lapsedByObject: boolean;
  audit: Array<Record<string, unknown>>;
}

const now = () => new Date().toISOString();

export function minimalTaskProvider(
  tokens: Record<string, Who>,
  adminToken: string,
  choices: Choices = NAMED,
): { app: Hono; seed(tenant: string, ref: string, data: Record<string, unknown>): void } {
  const sha = (v: unknown) =>
    createHash('sha256')
      .update(choices.digest === 'canonical' ? canonicalJson(v) : JSON.stringify(v))
      .digest('hex');
  const ev = choices.events;
  const objects = new Map<string, Obj>();
  const tasks = new Map<string, Task>();
  const createKeys = new Map<string, { fp: string; status: number; body: unknown }>();
  const applyKeys = new Map<string, { status: number; body: unknown }>();
  const app = new Hono();

  const problem = (c: Context, status: number, code: string, detail: string, extra: Record<string, unknown> = {}) => {
    const request_id = c.res.headers.get('x-request-id') ?? '';
    return c.body(
      JSON.stringify({
        type: `https://jobproof.dev/problems/${code}`,
        title: code.replace(/_/g, ' '),
        status,
        detail,
        code,
        request_id,
        ...extra,
      }),
      status as 400,
      { 'content-type': 'application/problem+json' },
    );
  };
  const event = (t: Task, type: string, actor: string, facts: Record<string, unknown> = {}) =>
    t.audit.push({ seq: t.audit.length + 1, at: now(), type, actor, ...facts });
  const objKey = (tenant: string, ref: string) => `${tenant}\u0000${ref}`;
  const view = (t: Task) => {
    const { tenant: _t, input: _i, created_ms: _c, lapsedByObject: _l, audit: _a, ...rest } = t;
    return rest;
  };
  const draft = (t: Task, o: Obj, pv: number) => {
    const patch = (t.input.changes && typeof t.input.changes === 'object' ? t.input.changes : t.input) as Record<string, unknown>;
    const base = {
      proposal_version: pv,
      object_ref: o.ref,
      base_version: o.version,
      change: { type: 'merge_patch', patch },
      rationale: 'as asked',
    };
    t.result = {
      draft: {
        text: `update ${o.ref}`,
        sources: [{ ref: o.ref, version: o.version, excerpt: JSON.stringify(o.data).slice(0, 80) }],
        confidence: 0.8,
      },
      proposal: { ...base, sha256: sha(base) },
    };
    event(t, ev.draft, 'provider', { proposal_version: pv, base_version: o.version });
  };
  const advance = (t: Task) => {
    if (t.state === 'queued' && Date.now() - t.created_ms >= 30) {
      draft(t, objects.get(objKey(t.tenant, t.object_ref))!, 1);
      t.state = 'awaiting_review';
      t.updated_at = now();
      event(t, ev.transition, 'provider', { from: 'queued', to: 'awaiting_review', cause: 'draft ready' });
    }
    return t;
  };
  const redraftOn = (o: Obj, cause: string) => {
    for (const t of tasks.values()) {
      if (t.tenant !== o.tenant || t.object_ref !== o.ref || !['awaiting_review', 'approved'].includes(advance(t).state)) continue;
      if (t.state === 'approved') {
        t.lapsedByObject = true;
        event(t, ev.lapsed, 'provider', { reason: cause });
      }
      draft(t, o, t.result!.proposal.proposal_version + 1);
      event(t, ev.transition, 'provider', { from: t.state, to: 'awaiting_review', cause });
      t.state = 'awaiting_review';
      if (choices.lapse === 'clear') t.review = null;
      t.updated_at = now();
    }
  };

  app.use('*', async (c, next) => {
    c.header('x-request-id', `req_${randomUUID().replace(/-/g, '')}`);
    await next();
  });
  app.notFound((c) => problem(c, 404, 'not_found', 'no such route'));
  app.onError((err, c) => problem(c, 500, 'internal', err.message));

  app.post('/admin/objects/:ref/touch', (c) => {
    if (c.req.header('authorization') !== `Bearer ${adminToken}`) return problem(c, 401, 'unauthenticated', 'admin token');
    const o = [...objects.values()].find((x) => x.ref === c.req.param('ref'));
    if (!o) return problem(c, 404, 'object_not_found', 'no such object');
    o.version += 1;
    o.data = { ...o.data, touched: o.version };
    o.updated_at = now();
    redraftOn(o, `object changed to v${o.version}`);
    return c.json({ object_ref: o.ref, version: o.version });
  });

  const auth = (c: Context): Who | undefined => tokens[/^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? ''];
  const body = async (c: Context): Promise<any> => {
    try {
      const t = await c.req.text();
      return t === '' ? {} : JSON.parse(t);
    } catch {
      return undefined;
    }
  };

  app.get('/v1/objects/:ref', (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const o = objects.get(objKey(who.tenant, c.req.param('ref')));
    if (!o) return problem(c, 404, 'object_not_found', 'no such object');
    return c.json({ object_ref: o.ref, version: o.version, data: o.data, updated_at: o.updated_at });
  });

  app.post('/v1/tasks', async (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const key = c.req.header('idempotency-key');
    if (!key) return problem(c, 400, 'idempotency_key_missing', 'Idempotency-Key is required');
    const b = await body(c);
    if (b === undefined) return problem(c, 400, 'invalid_json', 'not JSON');
    const errors = [
      ...(b?.type === 'propose_update' ? [] : [{ path: 'type', message: 'must be propose_update' }]),
      ...(typeof b?.object_ref === 'string' && b.object_ref ? [] : [{ path: 'object_ref', message: 'required' }]),
      ...(Number.isInteger(b?.object_version) && b.object_version >= 1 ? [] : [{ path: 'object_version', message: 'a positive integer' }]),
      ...(b?.input && typeof b.input === 'object' && !Array.isArray(b.input) ? [] : [{ path: 'input', message: 'an object' }]),
    ];
    if (errors.length) return problem(c, 400, 'invalid_request', 'invalid body', { errors });
    if (!who.roles.includes('submitter')) return problem(c, 403, 'forbidden_role', 'not a submitter');
    const scope = `${who.tenant}\u0000${who.subject}\u0000${key}`;
    const fp = canonicalJson(b);
    const seen = createKeys.get(scope);
    if (seen) {
      if (seen.fp !== fp) return problem(c, 422, 'idempotency_key_reused', 'the key was used for another request');
      return c.body(JSON.stringify(seen.body), seen.status as 202, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
    }
    const o = objects.get(objKey(who.tenant, b.object_ref));
    if (!o) return problem(c, 404, 'object_not_found', 'no such object');
    if (o.version !== b.object_version)
      return problem(
        c,
        409,
        'stale_object_version',
        'not the current version',
        choices.staleVersion === 'current_version'
          ? { object_ref: o.ref, current_version: o.version }
          : { object: { ref: o.ref, version: o.version } },
      );
    const id = `task_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const t: Task = {
      task_id: id,
      tenant: who.tenant,
      type: b.type,
      state: 'queued',
      object_ref: o.ref,
      object_version: o.version,
      initiator: who.subject,
      input: b.input,
      created_ms: Date.now(),
      created_at: now(),
      updated_at: now(),
      result: null,
      review: null,
      application: null,
      error: null,
      lapsedByObject: false,
      audit: [],
    };
    tasks.set(id, t);
    event(t, ev.created, who.subject, { [choices.keyField]: key, object_ref: o.ref, version: o.version });
    const answer = { task_id: id, state: 'queued', status_url: `/v1/tasks/${id}` };
    createKeys.set(scope, { fp, status: 202, body: answer });
    return c.body(JSON.stringify(answer), 202, { 'content-type': 'application/json', location: `/v1/tasks/${id}` });
  });

  const taskOf = (c: Context, who: Who) => {
    const t = tasks.get(c.req.param('id') ?? '');
    return t && t.tenant === who.tenant ? advance(t) : undefined;
  };

  app.get('/v1/tasks/:id', (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const t = taskOf(c, who);
    return t ? c.json(view(t)) : problem(c, 404, 'task_not_found', 'no such task');
  });

  app.get('/v1/tasks/:id/audit', (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const t = taskOf(c, who);
    return t ? c.json({ task_id: t.task_id, events: t.audit }) : problem(c, 404, 'task_not_found', 'no such task');
  });

  app.post('/v1/tasks/:id/review', async (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const b = await body(c);
    if (!b || !['approve', 'reject', 'revoke'].includes(b.decision) || !Number.isInteger(b.proposal_version))
      return problem(c, 400, 'invalid_request', 'decision and proposal_version', {
        errors: [{ path: 'decision', message: 'approve, reject or revoke' }],
      });
    const t = taskOf(c, who);
    if (!t) return problem(c, 404, 'task_not_found', 'no such task');
    if (!who.roles.includes('reviewer')) return problem(c, 403, 'forbidden_role', 'not a reviewer');
    if (t.initiator === who.subject) return problem(c, 403, 'self_review_forbidden', 'own task');
    const wanted = b.decision === 'revoke' ? 'approved' : 'awaiting_review';
    if (!t.result || t.state !== wanted) return problem(c, 409, 'invalid_state', `task is ${t.state}`);
    if (b.proposal_version !== t.result.proposal.proposal_version) return problem(c, 409, 'stale_proposal', 'not the current proposal');
    const decision = b.decision === 'approve' ? 'approved' : b.decision === 'reject' ? 'rejected' : 'revoked';
    t.review = {
      decision,
      reviewer: who.subject,
      proposal_version: t.result.proposal.proposal_version,
      proposal_sha256: t.result.proposal.sha256,
      at: now(),
    };
    const to = decision === 'approved' ? 'approved' : decision === 'rejected' ? 'rejected' : 'awaiting_review';
    event(t, ev.review, who.subject, { decision, proposal_version: t.result.proposal.proposal_version });
    event(t, ev.transition, who.subject, { from: t.state, to, cause: `review: ${decision}` });
    t.state = to;
    t.lapsedByObject = false;
    t.updated_at = now();
    return c.json(choices.reviewAnswer === 'task' ? view(t) : { task_id: t.task_id, review: t.review });
  });

  app.post('/v1/tasks/:id/apply', async (c) => {
    const who = auth(c);
    if (!who) return problem(c, 401, 'unauthenticated', 'no or unknown token');
    const key = c.req.header('idempotency-key');
    if (!key) return problem(c, 400, 'idempotency_key_missing', 'Idempotency-Key is required');
    const t = taskOf(c, who);
    if (!t) return problem(c, 404, 'task_not_found', 'no such task');
    if (!who.roles.includes('submitter')) return problem(c, 403, 'forbidden_role', 'not a submitter');
    const seen = applyKeys.get(`${t.task_id}\u0000${key}`);
    if (seen)
      return c.body(JSON.stringify(seen.body), seen.status as 200, { 'content-type': 'application/json', 'idempotent-replayed': 'true' });
    event(t, ev.applyRequested, who.subject, { [choices.keyField]: key });
    if (t.state === 'applied')
      return problem(
        c,
        409,
        'already_applied',
        'applied before',
        choices.alreadyApplied === 'top' ? { application: t.application, task: view(t) } : { task: view(t) },
      );
    if (t.state !== 'approved') {
      const code = t.lapsedByObject ? 'stale_object_version' : 'approval_required';
      event(t, ev.applyRefused, who.subject, { [choices.keyField]: key, code });
      return problem(c, 409, code, 'no current approval', { task: view(t) });
    }
    const o = objects.get(objKey(t.tenant, t.object_ref))!;
    o.data = { ...o.data, ...(t.result!.proposal.change.patch as Record<string, unknown>) };
    o.version += 1;
    o.updated_at = now();
    t.application = { applied_at: now(), new_version: o.version, idempotency_key: key };
    event(t, ev.application, who.subject, {
      [choices.keyField]: key,
      base_version: t.result!.proposal.base_version,
      new_version: o.version,
    });
    t.state = 'applied';
    t.updated_at = now();
    const answer = view(t);
    applyKeys.set(`${t.task_id}\u0000${key}`, { status: 200, body: answer });
    redraftOn(o, `task ${t.task_id} applied`);
    return c.json(answer);
  });

  return { app, seed: (tenant, ref, data) => void objects.set(objKey(tenant, ref), { tenant, ref, version: 1, data, updated_at: now() }) };
}
