import { createHash } from 'node:crypto';
import { brief } from '../http.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { createJob, expectProblem, expectStatus, fail, needToken, TERMINAL, waitTerminal } from '../helpers.js';
import type { Check } from '../types.js';

/** RFC 9530: Content-Digest is a dictionary; a provider may send other algorithms beside sha-256. */
function digestMembers(header: string | null): string[] {
  return (header ?? '').split(',').map((m) => m.trim().replace(/\s*=\s*/, '='));
}

export const tenantsIsolated: Check = {
  name: 'tenancy.isolated-404',
  description: 'another tenant reading, cancelling or fetching results of a job gets 404 job_not_found (never 403)',
  async run(ctx, ev) {
    const other = needToken(ctx.opts.otherTenantToken, '--other-tenant-token');
    const { id } = await createJob(ctx, ctx.kinds.slow, 'tenancy');
    for (const [method, path] of [
      ['GET', `/v1/jobs/${id}`],
      ['POST', `/v1/jobs/${id}/cancel`],
      ['GET', `/v1/jobs/${id}/results`],
    ] as const) {
      const a = await ctx.http.call(method, path, { token: other });
      ev.push(`${method} ${path} as --other-tenant-token → ${brief(a)}`);
      if (a.status === 403) fail(`${method} ${path}: 403 tells another tenant the job exists; expected 404`);
      expectProblem(a, 404, 'job_not_found', `${method} ${path} as another tenant`);
    }
    const mine = await ctx.http.call('GET', `/v1/jobs/${id}`);
    if (mine.json?.state === 'cancelling' || mine.json?.state === 'cancelled') fail("another tenant's cancel reached the job");
    return 'another tenant sees 404 job_not_found everywhere';
  },
};

export const finalStateStable: Check = {
  name: 'job.final-state-stable',
  description: 'a final state never changes: repeated reads (and a cancel) after the end show the same state and result',
  async run(ctx, ev) {
    const { id } = await createJob(ctx, ctx.kinds.fast, 'final');
    const end = await waitTerminal(ctx, id);
    ev.push(`job ${id} ended ${end.state}`);
    await ctx.http.call('POST', `/v1/jobs/${id}/cancel`);
    for (let i = 0; i < 4; i++) {
      const a = await ctx.http.call('GET', `/v1/jobs/${id}`);
      expectStatus(a, 200, 'read after the end');
      if (a.json.state !== end.state) {
        ev.push(`read ${i + 1} → ${a.json.state}`);
        fail(`the final state ${end.state} changed to ${a.json.state}`);
      }
      if (canonicalJson(a.json.result ?? null) !== canonicalJson(end.result ?? null)) fail('the result of a finished job changed');
    }
    ev.push('4 more reads and a cancel: unchanged');
    return `${end.state} stayed ${end.state}`;
  },
};

export const cancelRepeat: Check = {
  name: 'cancel.repeat-harmless',
  description: 'cancelling a running job twice is harmless: 202 both times, the same cancel_requested_at',
  async run(ctx, ev) {
    const { id } = await createJob(ctx, ctx.kinds.slow, 'cancel-twice');
    const a = await ctx.http.call('POST', `/v1/jobs/${id}/cancel`);
    const b = await ctx.http.call('POST', `/v1/jobs/${id}/cancel`);
    ev.push(`cancel → ${brief(a)} ${a.json?.state}`, `cancel again → ${brief(b)} ${b.json?.state}`);
    if (a.status === 409) fail('the job was already final before the first cancel (use a slower job kind via the control API)');
    expectStatus(a, 202, 'first cancel');
    // The job may end between the two requests: cancelled, or succeeded/failed past its commit point (provider-api.md).
    if (b.status === 409 && b.json?.code === 'job_terminal' && TERMINAL.includes(b.json?.job?.state))
      return `the job ended ${b.json.job.state} between the two requests; the second cancel learnt it`;
    expectStatus(b, 202, 'second cancel');
    if (a.json?.cancel_requested_at !== b.json?.cancel_requested_at)
      fail(`cancel_requested_at moved: ${a.json?.cancel_requested_at} → ${b.json?.cancel_requested_at}`);
    return 'the repeated cancel answered the same';
  },
};

export const cancelAfterEnd: Check = {
  name: 'cancel.after-end-409',
  description: 'cancelling a finished job is 409 job_terminal with the job',
  async run(ctx, ev) {
    const { id } = await createJob(ctx, ctx.kinds.fast, 'cancel-late');
    const end = await waitTerminal(ctx, id);
    const a = await ctx.http.call('POST', `/v1/jobs/${id}/cancel`);
    ev.push(`job ${id} ${end.state}; cancel → ${brief(a)} job.state=${a.json?.job?.state}`);
    const p = expectProblem(a, 409, 'job_terminal', 'cancel after the end');
    if (p.job?.job_id !== id || p.job?.state !== end.state)
      fail(`the 409 does not carry the job in its final state (job: ${JSON.stringify(p.job)?.slice(0, 200)})`);
    return '409 job_terminal with the job';
  },
};

export const resultsDigest: Check = {
  name: 'results.digest',
  description: "the results body's SHA-256 equals the job's result.sha256 and its Content-Digest",
  async run(ctx, ev) {
    const { id } = await createJob(ctx, ctx.kinds.fast, 'results');
    const end = await waitTerminal(ctx, id);
    if (end.state !== 'succeeded')
      fail(`the job ended ${end.state}; a succeeded job is needed (configure a succeeding kind via the control API)`);
    const res = await fetch(new URL(`/v1/jobs/${id}/results`, ctx.http.base), { headers: { authorization: `Bearer ${ctx.opts.token}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    const hex = createHash('sha256').update(bytes).digest('hex');
    const b64 = createHash('sha256').update(bytes).digest('base64');
    ev.push(
      `results → ${res.status}, ${bytes.length} bytes, sha256 ${hex}`,
      `job result.sha256 ${end.result?.sha256}`,
      `Content-Digest: ${res.headers.get('content-digest')}`,
    );
    if (res.status !== 200) fail(`GET results answered ${res.status}`);
    if (String(end.result?.sha256).toLowerCase() !== hex) fail("the body's SHA-256 differs from the job's result.sha256");
    if (!digestMembers(res.headers.get('content-digest')).includes(`sha-256=:${b64}:`))
      fail('Content-Digest has no sha-256 member matching the body');
    return 'the results match their digest';
  },
};
