import { z } from 'zod';
import { fingerprint } from '../../lib/canonical-json.js';
import { behaviorFor } from '../../contract/behavior.js';
import { isTerminal } from '../../contract/jobs.js';
import type { Principal } from '../../contract/principals.js';
import { getPath } from '../../contract/profile-template.js';
import { readJson, type Parsed } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey, type KeyParse } from '../http/idempotency-key.js';
import { problem } from '../http/problem.js';
import { described, inProgress, reserveThenHold, storedResponse, unexecuted } from '../http/seam/index.js';
import type { StoredAnswer } from '../store/idempotency-repo.js';
import type { JobRow } from '../store/jobs-repo.js';
import { answerOf, type ProfileDeps, stateOfAnswer } from './answers.js';
import { profileKind, type ProfileInput } from './view.js';
import { atomically } from '../store/atomically.js';

const BodySchema = z.record(z.string(), z.unknown());

export interface CreateInput {
  key: KeyParse;
  body: Parsed<Record<string, unknown>>;
}

function keyOf(d: ProfileDeps, c: Ctx, body: Parsed<Record<string, unknown>>): KeyParse {
  const i = d.profile.idempotency;
  if (i.source === 'header') return parseIdempotencyKey(c.req.header(i.name));
  if (i.source === 'body') {
    const v = body.ok ? getPath(body.value, i.name) : undefined;
    if (v === undefined || v === null || v === '') return { ok: 'missing' };
    return typeof v === 'string' && v.length <= 255
      ? { ok: true, key: v }
      : { ok: false, message: `${i.name} must be a string of at most 255 characters` };
  }
  if (i.source === 'client_id' && d.profile.id.source === 'body' && body.ok) {
    const v = getPath(body.value, d.profile.id.field);
    if (typeof v === 'string') return { ok: true, key: v };
  }
  return { ok: 'missing' };
}

/** Key, fingerprint and client reference go to the journal before the fault decision (the judge links by them). */
export function describeCreate(d: ProfileDeps): (c: Ctx, p: Principal) => Promise<CreateInput> {
  return async (c) => {
    const draft = c.get('draft');
    const body = await readJson(c, BodySchema, true);
    const key = keyOf(d, c, body);
    if (key.ok === true) draft.idempotency_key = key.key;
    if (body.ok) {
      draft.fingerprint = fingerprint(body.raw);
      const ref = d.profile.create.client_ref ? getPath(body.value, d.profile.create.client_ref) : undefined;
      draft.client_ref = typeof ref === 'string' ? ref.slice(0, 200) : null;
    }
    return { key, body };
  };
}

function invalid(c: Ctx, path: string, message: string): Response {
  return unexecuted(problem(c, 400, 'invalid_request', message, { errors: [{ path, message }] }));
}

/** What the create body lacks or gets wrong before anything executes; null when it may go on. */
function refuse(d: ProfileDeps, c: Ctx, body: Record<string, unknown>): Response | null {
  const p = d.profile;
  for (const f of p.create.required) if (getPath(body, f) === undefined) return invalid(c, f, `${f} is required`);
  if (p.id.source === 'body') {
    const v = getPath(body, p.id.field);
    if (typeof v !== 'string' || !new RegExp(p.id.pattern).test(v))
      return invalid(c, p.id.field, `${p.id.field} must match ${p.id.pattern}`);
    if (d.core.jobs.get(v)) return unexecuted(problem(c, p.id.taken.status, p.id.taken.code, `a job named ${v} already exists`));
  }
  const url = p.webhooks ? getPath(body, p.webhooks.url_field) : undefined;
  if (url !== undefined && url !== null && (typeof url !== 'string' || !/^https?:\/\/\S+$/.test(url) || url.length > 2000))
    return invalid(c, p.webhooks!.url_field, `${p.webhooks!.url_field} must be an http(s) URL`);
  return null;
}

/** `Prefer: wait[=n]` (Replicate): hold the answer until the job is final or n seconds passed. */
async function waitFinal(d: ProfileDeps, c: Ctx, job: JobRow): Promise<JobRow> {
  const sync = d.profile.sync;
  const m = sync?.prefer_wait ? /\bwait(?:=(\d+))?/.exec(c.req.header('prefer') ?? '') : null;
  if (!m || !sync) return job;
  const until = d.core.clock.now() + Math.min(Number(m[1] ?? sync.max_s), sync.max_s) * 1000;
  let cur = job;
  while (!isTerminal(cur.state) && d.core.clock.now() < until && !c.req.raw.signal.aborted) {
    await d.core.clock.sleep(Math.min(100, until - d.core.clock.now()));
    d.core.engine.tick();
    cur = d.core.jobs.get(job.job_id) ?? cur;
  }
  return cur;
}

/** The profile's create route: validation, idempotency as the profile says, one engine job, the answer in its shape. */
export async function createJob(d: ProfileDeps, c: Ctx, describe: ReturnType<typeof describeCreate>): Promise<Response> {
  const { core, profile: p } = d;
  const draft = c.get('draft');
  const principal = c.get('principal');
  const { key: keyParse, body } = described(c, describe);
  if (!body.ok) return unexecuted(body.response);
  const i = p.idempotency;
  const keyed = i.source === 'header' || i.source === 'body';
  if (keyed && i.required && keyParse.ok === 'missing')
    return unexecuted(
      problem(
        c,
        400,
        'idempotency_key_missing',
        `${p.create.route.method} ${p.create.route.path} needs ${i.source === 'header' ? `an ${i.name} header` : `a ${i.name} field`}`,
      ),
    );
  if (keyed && keyParse.ok === false)
    return invalid(c, i.source === 'header' ? `headers.${i.name.toLowerCase()}` : i.name, keyParse.message);
  const refused = refuse(d, c, body.value);
  if (refused) return refused;
  const key = keyed && keyParse.ok === true ? keyParse.key : null;
  const fp = draft.fingerprint!;
  const scope = key === null ? null : { tenant: principal.tenant, subject: principal.subject, scope: `profile:${p.name}`, key };
  if (scope && keyed) {
    const known = core.idempotency.lookup(scope, core.clock.now());
    if (known && known.fingerprint !== fp)
      return unexecuted(
        problem(c, i.reuse.status, i.reuse.code, `this ${i.name} was used with a different request body; nothing was created`),
      );
    if (known?.state === 'in_flight') return inProgress(core, c);
    if (known?.state === 'done') {
      draft.job_id = known.job_id;
      draft.effect = 'replayed';
      draft.job_state = stateOfAnswer(p, known.answer.body) ?? core.jobs.get(known.job_id ?? '')?.state ?? null;
      const res = storedResponse(c, known.answer, false);
      if (i.replay_header) res.headers.set(i.replay_header, 'true');
      return res;
    }
  }
  const holds = c.get('fault')?.fault.type === 'delay';
  if (holds && scope) await reserveThenHold(core, c, scope, fp);
  else await c.get('hold')();
  const kindValue = p.create.kind ? getPath(body.value, p.create.kind) : undefined;
  const behavior = behaviorFor(core.behaviors.get(), typeof kindValue === 'string' ? kindValue : profileKind(p));
  const webhook = p.webhooks ? getPath(body.value, p.webhooks.url_field) : undefined;
  const input: ProfileInput = { profile: p.name, origin: new URL(c.req.url).origin, request: body.value };
  core.group.join();
  const result = atomically(core.db, (): { job: JobRow; answer: StoredAnswer } => {
    const id = p.id.source === 'body' ? (getPath(body.value, p.id.field) as string) : `${p.id.prefix}${core.ids('id').slice(3)}`;
    const job = core.engine.create(
      principal,
      {
        kind: profileKind(p),
        input: input as unknown as Record<string, unknown>,
        client_ref: draft.client_ref ?? undefined,
        webhook_url: typeof webhook === 'string' ? webhook : undefined,
      },
      behavior,
      { key: key ?? (i.source === 'client_id' ? id : null), trace_id: c.get('traceId'), id },
    );
    const answer = answerOf(d, job, core.clock.now());
    if (scope && holds)
      core.idempotency.complete(
        scope,
        answer,
        job.job_id,
        core.clock.now(),
        i.source === 'none' ? 0 : (i as { window_s: number }).window_s * 1000,
      );
    else if (scope) core.idempotency.store(scope, fp, answer, job.job_id, core.clock.now(), (i as { window_s: number }).window_s * 1000);
    return { job, answer };
  });
  core.engine.scheduleCreated();
  draft.effect = 'created';
  draft.job_id = result.job.job_id;
  draft.job_state = result.job.state;
  if (i.source === 'client_id') draft.idempotency_key = result.job.job_id;
  const waited = await waitFinal(d, c, result.job);
  if (waited === result.job) return storedResponse(c, result.answer, false);
  draft.job_state = waited.state;
  return storedResponse(c, answerOf(d, waited, core.clock.now()), false);
}
