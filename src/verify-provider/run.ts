import { randomBytes } from 'node:crypto';
import { CHECKS } from './checks/index.js';
import { auditLines } from './task-helpers.js';
import { Http } from './http.js';
import { Failed, NotRun, type Check, type CheckContext, type CheckResult, type VerifyOptions } from './types.js';

export interface VerifyReport {
  url: string;
  started_at: string;
  wall_ms: number;
  control: boolean;
  control_note: string;
  passed: boolean;
  counts: { passed: number; failed: number; not_run: number };
  checks: CheckResult[];
}

const FAST = 'jobproof-verify.fast';
const SLOW = 'jobproof-verify.slow';

async function detectControl(http: Http, token: string | undefined): Promise<{ ok: boolean; why: string }> {
  if (!token) return { ok: false, why: 'no control token given (--control-token, or "control_token" in a --plan)' };
  const out = await http.try('GET', '/_control/faults', { token });
  if (!out.ok) return { ok: false, why: `GET /_control/faults: no answer (${out.error})` };
  if (out.answer.status === 200) return { ok: true, why: '' };
  if (out.answer.status === 404) return { ok: false, why: 'the control API answers 404' };
  return { ok: false, why: `GET /_control/faults answered ${out.answer.status}` };
}

/** Set up quick and slow job kinds and quick drafting through the control API; returns how to undo it. */
async function prepare(http: Http, token: string): Promise<{ configured: boolean; undo: () => Promise<void> }> {
  const undo: Array<() => Promise<unknown>> = [];
  let configured = false;
  const b = await http.try('GET', '/_control/behavior', { token });
  if (b.ok && b.answer.status === 200 && b.answer.json?.default) {
    const before = b.answer.json;
    const next = {
      default: before.default,
      by_kind: { ...(before.by_kind ?? {}), [FAST]: { duration_ms: 150 }, [SLOW]: { duration_ms: 600_000 } },
    };
    const put = await http.try('PUT', '/_control/behavior', { token, body: next });
    if (put.ok && put.answer.status === 200) {
      configured = true;
      undo.push(() => http.try('PUT', '/_control/behavior', { token, body: { default: before.default, by_kind: before.by_kind ?? {} } }));
    }
  }
  const tb = await http.try('GET', '/_control/task-behavior', { token });
  if (tb.ok && tb.answer.status === 200) {
    const before = tb.answer.json;
    await http.try('PUT', '/_control/task-behavior', { token, body: { draft_ms: 60, outcome: 'awaiting_review', apply: 'ok' } });
    undo.push(() => http.try('PUT', '/_control/task-behavior', { token, body: before }));
  }
  return {
    configured,
    undo: async () => {
      for (const u of undo.reverse()) await u();
    },
  };
}

async function learnTenant(ctx: CheckContext): Promise<string | null> {
  const known = ctx.opts.tenants?.[ctx.opts.token];
  if (known) return known;
  if (!ctx.control) return null;
  const t = ctx.opts.controlToken!;
  const p = await ctx.http.try('GET', '/_control/principals', { token: t });
  if (p.ok && p.answer.status === 200 && typeof p.answer.json?.tokens?.[ctx.opts.token]?.tenant === 'string')
    return p.answer.json.tokens[ctx.opts.token].tenant;
  const job = await ctx.http.try('POST', '/v1/jobs', {
    headers: { 'idempotency-key': ctx.key('tenant') },
    body: { kind: ctx.kinds.slow, input: {} },
  });
  if (!job.ok || typeof job.answer.json?.job_id !== 'string') return null;
  const jobs = await ctx.http.try('GET', '/_control/jobs', { token: t });
  const row = jobs.ok
    ? (jobs.answer.json?.data as Array<Record<string, unknown>> | undefined)?.find((j) => j.job_id === job.answer.json.job_id)
    : undefined;
  return typeof row?.tenant === 'string' ? row.tenant : null;
}

export async function runCheck(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const evidence: string[] = [];
  const started = Date.now();
  ctx.facts = { name: check.name, tasks: [] };
  const facts = ctx.facts;
  const done = async (status: CheckResult['status'], explanation: string): Promise<CheckResult> => {
    const r: CheckResult = { name: check.name, status, evidence, explanation, duration_ms: Date.now() - started };
    if (facts.expected !== undefined) r.expected = facts.expected;
    if (facts.got !== undefined) r.got = facts.got;
    // The audit record of the check's first task, as the provider shows it now (seed 004: every case has one).
    if (facts.tasks[0] && status !== 'not_run') r.audit = (await auditLines(ctx, facts.tasks[0]).catch(() => ({ lines: [] }))).lines;
    return r;
  };
  const apis = ctx.opts.plan?.apis;
  if (apis && !apis.includes(check.api ?? 'jobs')) return done('not_run', `the plan leaves out the ${check.api ?? 'jobs'} API`);
  try {
    return await done('passed', await check.run(ctx, evidence));
  } catch (err) {
    if (err instanceof NotRun) return done('not_run', err.message);
    if (err instanceof Failed) return done('failed', err.message);
    return done('failed', `the check could not complete: ${(err as Error)?.message ?? err}`);
  }
}

/** Run the checks against a provider over real HTTP. Exit status: passed only when nothing failed. */
export async function verifyProvider(
  opts: VerifyOptions,
  onResult?: (r: CheckResult, i: number, n: number) => void,
): Promise<VerifyReport> {
  const started = Date.now();
  const http = new Http(opts.url, opts.token, opts.requestTimeoutMs ?? 10_000);
  const runId = `jpv-${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let seq = 0;
  const c = await detectControl(http, opts.controlToken);
  const prep = c.ok ? await prepare(http, opts.controlToken!) : { configured: false, undo: async () => undefined };
  let tenant: Promise<string | null> | undefined;
  const ctx: CheckContext = {
    opts,
    http,
    runId,
    control: c.ok,
    controlWhy: c.why,
    kinds: prep.configured ? { fast: FAST, slow: SLOW, configured: true } : { fast: 'report', slow: 'report', configured: false },
    key: (label) => `${runId}-${label}-${++seq}`,
    tenant: () => (tenant ??= learnTenant(ctx)),
    facts: { name: '', tasks: [] },
  };
  const selected = opts.only?.length ? CHECKS.filter((x) => opts.only!.includes(x.name)) : [...CHECKS];
  const checks: CheckResult[] = [];
  try {
    for (const check of selected) {
      const r = await runCheck(check, ctx);
      checks.push(r);
      onResult?.(r, checks.length, selected.length);
    }
  } finally {
    await prep.undo();
    if (c.ok) await http.try('DELETE', '/_control/faults', { token: opts.controlToken! });
  }
  const counts = { passed: 0, failed: 0, not_run: 0 };
  for (const r of checks) counts[r.status]++;
  return {
    url: opts.url,
    started_at: new Date(started).toISOString(),
    wall_ms: Date.now() - started,
    control: c.ok,
    control_note: c.why,
    passed: counts.failed === 0,
    counts,
    checks,
  };
}
