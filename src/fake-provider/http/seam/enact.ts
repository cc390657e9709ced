import type { ProviderCore } from '../../core.js';
import type { FiredRule } from '../../faults/decide.js';
import type { Ctx } from '../context.js';
import { problem } from '../problem.js';

/**
 * What a fired rule does to a request, in the order the seam applies it: `refuseBefore` answers the faults that stop
 * a request before it executes, `delay` holds it, `enactAfter` turns the executed answer into the one the plan wants
 * the client to see. Errors take the shape of the mount serving the request.
 */
export function refuseBefore(c: Ctx, fired: FiredRule | null): Response | null {
  const f = fired?.fault;
  if (f?.type === 'rate_limit') {
    return problem(c, 429, 'rate_limited', 'too many requests (injected fault)', {}, { 'retry-after': String(f.retry_after) });
  }
  if (f?.type === 'fail_before_commit') {
    const headers: Record<string, string> = f.retry_after !== undefined ? { 'retry-after': String(f.retry_after) } : {};
    return problem(c, f.status, 'provider_unavailable', 'the provider failed before executing the request (injected fault)', {}, headers);
  }
  return null;
}

/** The provider stopped while this request was held: like a process that died, it never answers. */
export class ProviderClosedError extends Error {
  constructor() {
    super('the provider stopped while the request was in flight');
  }
}

export async function delay(core: ProviderCore, c: Ctx, fired: FiredRule | null): Promise<void> {
  if (fired?.fault.type !== 'delay') return;
  c.get('draft').delivery = 'delayed';
  await core.clock.sleep(fired.fault.ms);
  if (core.isClosed()) throw new ProviderClosedError();
  // A client that gave up meanwhile (its timeout, or its process killed) never reads this answer: the journal must
  // not count it as told. The request still executes, as a held request does on a real server. Both transports abort
  // the request's signal when the client goes (node-server on a premature close, in process the fetch's own).
  if (c.req.raw.signal.aborted) c.get('draft').delivery = 'lost';
  core.engine.tick();
}

/** A replay that names a job the key never created: the contract violation of the `foreign_job_id` fault. */
async function foreignReplay(core: ProviderCore, c: Ctx, res: Response, realId: string): Promise<Response> {
  const fake = core.ids('job');
  const swap = (s: string) => s.split(realId).join(fake);
  const headers = new Headers();
  res.headers.forEach((v, k) => {
    headers.set(k, swap(v));
  });
  const d = c.get('draft');
  d.effect = 'foreign_replay';
  // The journal says what the client was told: the id served, not the key's own (that stays in the created entry).
  d.job_id = fake;
  d.job_state = null;
  return new Response(swap(await res.text()), { status: res.status, headers });
}

/** A find answer that lists, next to the key's job, a foreign one under the same key: `foreign_job_id` on `list`. */
async function foreignFind(core: ProviderCore, c: Ctx, res: Response): Promise<Response> {
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { data?: Array<Record<string, unknown>> } | null;
  const first = body?.data?.[0];
  if (!body || !first || typeof first.job_id !== 'string') return res;
  const fake = core.ids('job');
  const d = c.get('draft');
  d.effect = 'foreign_replay';
  d.job_id = fake;
  d.listed = [...(d.listed ?? []), { job_id: fake, state: first.state as NonNullable<typeof d.listed>[number]['state'] }];
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify({ ...body, data: [...body.data!, { ...first, job_id: fake }] }), { status: res.status, headers });
}

export async function enactAfter(core: ProviderCore, c: Ctx, fired: FiredRule | null, res: Response): Promise<Response> {
  const f = fired?.fault;
  const d = c.get('draft');
  if (f?.type === 'error_after_commit') {
    // The 500 carries no job: the journal's job_state is the state the answer showed (journal.ts), so none. Judges
    // read it as "the client was told": a status read that executed and then failed told nothing.
    d.job_state = null;
    return problem(c, 500, 'internal_error', 'the request was executed, then the provider failed to answer (injected fault)');
  }
  if (f?.type === 'lose_response') {
    d.delivery = 'lost';
    d.loss = f.mode;
  }
  if (f?.type === 'foreign_job_id' && d.effect === 'replayed' && d.job_id) return foreignReplay(core, c, res, d.job_id);
  if (f?.type === 'foreign_job_id' && d.effect === 'read' && d.listed?.length && res.status === 200) return foreignFind(core, c, res);
  return res;
}
