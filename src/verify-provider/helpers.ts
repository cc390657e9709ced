import { PROBLEM_TYPE_BASE } from '../contract/problems.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { brief, type Answer } from './http.js';
import { answerMatches } from './plan.js';
import { Failed, NotRun, type CheckContext } from './types.js';

export function fail(message: string): never {
  throw new Failed(message);
}

export function notRun(message: string): never {
  throw new NotRun(message);
}

export function needControl(ctx: CheckContext): void {
  if (!ctx.control) notRun(`needs the control API: ${ctx.controlWhy}`);
}

export function needToken(value: string | undefined, flag: string): string {
  if (!value) notRun(`needs ${flag}`);
  return value;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function expectStatus(a: Answer, status: number | number[], what: string): void {
  const ok = Array.isArray(status) ? status.includes(a.status) : a.status === status;
  if (!ok) fail(`${what}: expected ${Array.isArray(status) ? status.join(' or ') : status}, got ${brief(a)}: ${a.text.slice(0, 300)}`);
}

/** What is wrong with an answer as an RFC 9457 problem of provider-api.md, or [] when nothing is. */
export function problemFaults(a: Answer): string[] {
  const out: string[] = [];
  const ct = a.headers.get('content-type') ?? '';
  if (!ct.toLowerCase().startsWith('application/problem+json')) out.push(`Content-Type is '${ct}', not application/problem+json`);
  const p = a.json;
  if (!p || typeof p !== 'object' || Array.isArray(p)) return [...out, 'the body is not a JSON object'];
  if (typeof p.code !== 'string' || p.code === '') out.push('no `code`');
  else if (p.type !== `${PROBLEM_TYPE_BASE}${p.code}`) out.push(`type '${p.type}' does not name the code`);
  if (typeof p.title !== 'string' || p.title === '') out.push('no `title`');
  if (p.status !== a.status) out.push(`body status ${p.status} ≠ HTTP status ${a.status}`);
  if (typeof p.detail !== 'string') out.push('no `detail`');
  const rid = a.headers.get('x-request-id');
  if (!rid) out.push('no X-Request-ID header');
  else if (p.request_id !== rid) out.push(`request_id ${p.request_id} ≠ X-Request-ID ${rid}`);
  return out;
}

/**
 * The check's main step: the answer must be one of `allowed` (`409 stale_object_version`, `202`), narrowed by the
 * pilot plan's `expect` for this check. Recorded as the check's expected/got either way.
 */
export function expectAnswer(ctx: CheckContext, a: Answer, allowed: readonly string[], what: string): void {
  const wanted = ctx.opts.plan?.expect[ctx.facts.name] ?? allowed;
  ctx.facts.expected = wanted.join(' or ');
  ctx.facts.got = brief(a);
  if (!wanted.some((w) => answerMatches(w, a.status, a.json?.code)))
    fail(`${what}: expected ${ctx.facts.expected}, got ${brief(a)}: ${a.text.slice(0, 300)}`);
  if (a.status >= 400) {
    const faults = problemFaults(a);
    if (faults.length) fail(`${what}: not an RFC 9457 problem: ${faults.join('; ')}`);
  }
}

export function expectProblem(a: Answer, status: number, code: string | string[], what: string): Record<string, any> {
  const codes = Array.isArray(code) ? code : [code];
  if (a.status !== status || !codes.includes(a.json?.code))
    fail(`${what}: expected ${status} ${codes.join(' or ')}, got ${brief(a)}: ${a.text.slice(0, 300)}`);
  const faults = problemFaults(a);
  if (faults.length) fail(`${what}: not an RFC 9457 problem: ${faults.join('; ')}`);
  return a.json;
}

/** The same answer body: byte for byte, or the same JSON (a replay may be serialised anew). */
export function sameBody(a: Answer, b: Answer): boolean {
  return a.text === b.text || (a.json !== undefined && b.json !== undefined && canonicalJson(a.json) === canonicalJson(b.json));
}

/** Whether a number appears anywhere in a body (the spec names a fact, e.g. "with the current version", not its field). */
export function mentionsNumber(body: unknown, n: number, skip: readonly string[] = ['status']): boolean {
  if (body === n) return true;
  if (body === null || typeof body !== 'object') return false;
  return Object.entries(body as Record<string, unknown>).some(([k, v]) => !skip.includes(k) && mentionsNumber(v, n, []));
}

export async function control(ctx: CheckContext, method: string, path: string, body?: unknown): Promise<Answer> {
  const a = await ctx.http.call(method, `/_control${path}`, { token: ctx.opts.controlToken!, body });
  if (a.status >= 300) fail(`control ${method} ${path}: ${brief(a)} ${a.text.slice(0, 200)}`);
  return a;
}

/** Run `fn` under a fault plan; the plan is cleared afterwards whatever happens. A refused plan: not run. */
export async function withFaults<T>(ctx: CheckContext, rules: unknown[], fn: () => Promise<T>): Promise<T> {
  needControl(ctx);
  const put = await ctx.http.try('PUT', '/_control/faults', { token: ctx.opts.controlToken!, body: { seed: 1, rules } });
  if (!put.ok) notRun(`needs fault injection: PUT /_control/faults got no answer (${put.error})`);
  if (put.answer.status >= 300)
    notRun(`needs fault injection: the control API refused the fault plan (${brief(put.answer)} ${put.answer.text.slice(0, 160)})`);
  try {
    return await fn();
  } finally {
    await ctx.http.try('DELETE', '/_control/faults', { token: ctx.opts.controlToken! });
  }
}

export async function poll<T>(what: string, ctx: CheckContext, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + (ctx.opts.waitMs ?? 20_000);
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) fail(`${what}: not reached within ${ctx.opts.waitMs ?? 20_000} ms`);
    await sleep(50);
  }
}

// ---- jobs ------------------------------------------------------------------------------------------------------

export const TERMINAL = ['succeeded', 'failed', 'cancelled', 'expired'];

export function jobBody(ctx: CheckContext, kind: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind, input: { verify: ctx.runId, ...extra } };
}

export async function createJob(
  ctx: CheckContext,
  kind: string,
  label: string,
  token?: string,
): Promise<{ id: string; key: string; answer: Answer }> {
  const key = ctx.key(label);
  const a = await ctx.http.call('POST', '/v1/jobs', { token, headers: { 'idempotency-key': key }, body: jobBody(ctx, kind, { label }) });
  expectStatus(a, [200, 202], 'POST /v1/jobs');
  if (typeof a.json?.job_id !== 'string') fail(`POST /v1/jobs: no job_id in ${a.text.slice(0, 200)}`);
  return { id: a.json.job_id, key, answer: a };
}

export async function waitTerminal(ctx: CheckContext, id: string): Promise<Record<string, any>> {
  return poll(`job ${id} final`, ctx, async () => {
    const a = await ctx.http.call('GET', `/v1/jobs/${id}`);
    expectStatus(a, 200, `GET /v1/jobs/${id}`);
    return TERMINAL.includes(a.json?.state) ? a.json : undefined;
  });
}
