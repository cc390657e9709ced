import { spawn } from 'node:child_process';
import { control, expectStatus, fail, needControl, needToken, notRun, poll } from './helpers.js';
import { brief, type Answer } from './http.js';
import type { PilotPlan } from './plan.js';
import type { CheckContext } from './types.js';

// What the tasks checks do again and again: objects, tasks awaiting review, reviews, roles, audit lines.

export async function putObject(ctx: CheckContext, ref: string, data: Record<string, unknown>): Promise<number> {
  needControl(ctx);
  const tenant = await ctx.tenant();
  if (!tenant) notRun('cannot learn the tenant of --token (give it in a --plan; no GET /_control/principals and no GET /_control/jobs)');
  await control(ctx, 'PUT', `/objects/${encodeURIComponent(ref)}`, { tenant, data });
  return objectVersion(ctx, ref);
}

/**
 * An object to draft against: the pilot plan's (at its current version), or a fresh one made through the control
 * API. Neither: the check is not run.
 */
export async function freshObject(
  ctx: CheckContext,
  label: string,
  data: Record<string, unknown>,
): Promise<{ ref: string; version: number }> {
  const planned = ctx.opts.plan?.object;
  if (planned) return { ref: planned.ref, version: await objectVersion(ctx, planned.ref) };
  if (!ctx.control) notRun(`needs an object to draft against: "object" in a --plan, or the control API (${ctx.controlWhy})`);
  const ref = `${ctx.runId}-${label}`;
  return { ref, version: await putObject(ctx, ref, data) };
}

/** Change the object (the plan's `change_object`, else the control API) and return its new version. */
export async function changeObject(ctx: CheckContext, ref: string, data: Record<string, unknown>): Promise<number> {
  const before = await objectVersion(ctx, ref);
  const how = ctx.opts.plan?.change_object;
  if (how) {
    await runChange(how, ref, before);
    const after = await objectVersion(ctx, ref);
    if (after <= before) notRun(`the plan's change_object did not change ${ref} (version ${before} before and ${after} after)`);
    return after;
  }
  if (!ctx.control) notRun(`needs a way to change the object: "change_object" in a --plan, or the control API (${ctx.controlWhy})`);
  return putObject(ctx, ref, data);
}

async function runChange(how: NonNullable<PilotPlan['change_object']>, ref: string, version: number): Promise<void> {
  if ('command' in how) {
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn('/bin/sh', ['-c', how.command], {
        env: { ...process.env, JOBPROOF_OBJECT_REF: ref, JOBPROOF_OBJECT_VERSION: String(version) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-2000)));
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.on('error', (e) => (err += e.message));
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, err });
      });
    });
    if (r.code !== 0) notRun(`the plan's change_object command exited ${r.code}: ${r.err.trim().slice(-300)}`);
    return;
  }
  const sub = (s: string) => s.replaceAll('{ref}', encodeURIComponent(ref));
  const body =
    how.body === undefined ? undefined : typeof how.body === 'string' ? sub(how.body) : JSON.stringify(how.body).replaceAll('{ref}', ref);
  const headers: Record<string, string> = {
    ...(body !== undefined && typeof how.body !== 'string' ? { 'content-type': 'application/json' } : {}),
    ...how.headers,
  };
  let status: number;
  try {
    const res = await fetch(sub(how.url), { method: how.method, headers, body, signal: AbortSignal.timeout(30_000) });
    status = res.status;
    await res.arrayBuffer();
  } catch (e) {
    notRun(`the plan's change_object request failed: ${(e as Error).message}`);
  }
  if (status >= 300) notRun(`the plan's change_object request answered ${status}`);
}

export async function objectVersion(ctx: CheckContext, ref: string): Promise<number> {
  const o = await ctx.http.call('GET', `/v1/objects/${encodeURIComponent(ref)}`);
  expectStatus(o, 200, `GET /v1/objects/${ref}`);
  return o.json.version as number;
}

export function taskBody(
  ref: string,
  version: number,
  input: Record<string, unknown> = { changes: { status: 'reviewed' } },
): Record<string, unknown> {
  return { type: 'propose_update', object_ref: ref, object_version: version, input };
}

/** The task input the plan gives for its object (the default: a small status change). */
export function planInput(ctx: CheckContext): Record<string, unknown> | undefined {
  return ctx.opts.plan?.object?.input;
}

/** One line per audit event: `seq type actor` and the facts an auditor looks for (keys, versions, decisions). */
export async function auditLines(
  ctx: CheckContext,
  id: string,
): Promise<{ status: number; events: Array<Record<string, any>>; lines: string[] }> {
  const a = await ctx.http.try('GET', `/v1/tasks/${id}/audit`);
  if (!a.ok) return { status: 0, events: [], lines: [`GET /v1/tasks/${id}/audit: no answer (${a.error})`] };
  const events = Array.isArray(a.answer.json?.events) ? (a.answer.json.events as Array<Record<string, any>>) : [];
  if (a.answer.status !== 200) return { status: a.answer.status, events, lines: [`GET /v1/tasks/${id}/audit → ${brief(a.answer)}`] };
  const facts = [
    'idempotency_key',
    'decision',
    'proposal_version',
    'version',
    'base_version',
    'new_version',
    'code',
    'from',
    'to',
    'cause',
    'reason',
  ];
  const lines = events.map((e, i) =>
    [
      `${e.seq ?? i + 1}`,
      String(e.type),
      e.actor ? `by ${e.actor}` : '',
      ...facts.filter((f) => e[f] !== undefined && e[f] !== null && typeof e[f] !== 'object').map((f) => `${f}=${e[f]}`),
    ]
      .filter(Boolean)
      .join(' '),
  );
  return { status: 200, events, lines: [`task ${id}:`, ...lines] };
}

/** An object (the plan's or a fresh one) and a task on it; returns once the task awaits review. */
export async function taskAwaitingReview(
  ctx: CheckContext,
  label: string,
  evidence: string[],
  token?: string,
): Promise<{ ref: string; version: number; id: string; task: Record<string, any>; key: string }> {
  const { ref, version } = await freshObject(ctx, label, { label, amount: 100 });
  const key = ctx.key(`task-${label}`);
  const a = await ctx.http.call('POST', '/v1/tasks', {
    token,
    headers: { 'idempotency-key': key },
    body: taskBody(ref, version, planInput(ctx)),
  });
  expectStatus(a, 202, 'POST /v1/tasks');
  const id = a.json?.task_id;
  if (typeof id !== 'string') fail(`POST /v1/tasks: no task_id in ${a.text.slice(0, 200)}`);
  ctx.facts.tasks.push(id);
  const task = await waitTask(ctx, id, ['awaiting_review'], token);
  evidence.push(`object ${ref} v${version}; task ${id} awaiting_review, proposal ${task.result?.proposal?.proposal_version}`);
  return { ref, version, id, task, key };
}

export async function waitTask(ctx: CheckContext, id: string, states: string[], token?: string): Promise<Record<string, any>> {
  return poll(`task ${id} in ${states.join('/')}`, ctx, async () => {
    const a = await ctx.http.call('GET', `/v1/tasks/${id}`, { token });
    expectStatus(a, 200, `GET /v1/tasks/${id}`);
    if (['failed', 'rejected', 'applied', 'apply_failed'].includes(a.json?.state) && !states.includes(a.json.state))
      fail(`task ${id} ended ${a.json.state}`);
    return states.includes(a.json?.state) ? a.json : undefined;
  });
}

export async function review(ctx: CheckContext, id: string, token: string, decision: string, proposalVersion: number): Promise<Answer> {
  return ctx.http.call('POST', `/v1/tasks/${id}/review`, {
    token,
    body: { decision, proposal_version: proposalVersion, comment: `verify-provider ${ctx.runId}` },
  });
}

/** Approve as the reviewer and return the task as it then reads (tasks-api.md fixes no body for a review's answer). */
export async function approve(ctx: CheckContext, id: string, proposalVersion: number): Promise<Record<string, any>> {
  const reviewer = needToken(ctx.opts.reviewerToken, '--reviewer-token');
  const a = await review(ctx, id, reviewer, 'approve', proposalVersion);
  if (a.status < 200 || a.status >= 300) fail(`approve as --reviewer-token: expected a 2xx, got ${brief(a)}: ${a.text.slice(0, 300)}`);
  const t = await ctx.http.call('GET', `/v1/tasks/${id}`);
  expectStatus(t, 200, `GET /v1/tasks/${id} after the approval`);
  if (t.json?.state !== 'approved')
    fail(`approve as --reviewer-token answered ${brief(a)}, but the task is ${t.json?.state}, not approved`);
  return t.json;
}

/** Run `fn` with `token` holding `roles` (control API principals), then put its principal back. */
export async function withRoles<T>(ctx: CheckContext, token: string, roles: string[], fn: () => Promise<T>): Promise<T> {
  const all = await ctx.http.call('GET', '/_control/principals', { token: ctx.opts.controlToken! });
  const before = all.status === 200 ? all.json?.tokens?.[token] : undefined;
  if (!before) notRun('needs GET/PUT /_control/principals to change roles at run time');
  await control(ctx, 'PUT', '/principals', { tokens: { [token]: { ...before, roles } } });
  try {
    return await fn();
  } finally {
    await ctx.http.try('PUT', '/_control/principals', { token: ctx.opts.controlToken!, body: { tokens: { [token]: before } } });
  }
}
