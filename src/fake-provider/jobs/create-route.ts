import { fingerprint } from '../../lib/canonical-json.js';
import { isoTime } from '../../lib/clock.js';
import type { ProviderCore } from '../core.js';
import { behaviorFor } from '../../contract/behavior.js';
import { CreateJobBodySchema } from '../../contract/jobs.js';
import { atomically } from '../store/atomically.js';
import type { StoredAnswer } from '../store/idempotency-repo.js';
import { readJson, type Parsed } from '../http/body.js';
import type { Ctx } from '../http/context.js';
import { parseIdempotencyKey, type KeyParse } from '../http/idempotency-key.js';
import { problem } from '../http/problem.js';
import { described, inProgress, reserveThenHold, storedResponse, unexecuted } from '../http/seam/index.js';
import type { z } from 'zod';

const SCOPE = 'POST /v1/jobs';

export interface CreateInput {
  key: KeyParse;
  body: Parsed<z.output<typeof CreateJobBodySchema>>;
}

/** Key and body go to the journal before the fault decision: the judge links create attempts by key and client_ref. */
export async function describeCreate(c: Ctx): Promise<CreateInput> {
  const draft = c.get('draft');
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (key.ok === true) draft.idempotency_key = key.key;
  const body = await readJson(c, CreateJobBodySchema);
  if (body.ok) {
    draft.fingerprint = fingerprint(body.raw);
    draft.client_ref = body.value.client_ref ?? null;
  }
  return { key, body };
}

/** `POST /v1/jobs`: idempotent create per the IETF draft, scoped to tenant + subject. */
export async function createJob(core: ProviderCore, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  const principal = c.get('principal');
  const { key: keyParse, body } = described(c, describeCreate);
  if (keyParse.ok === 'missing')
    return unexecuted(problem(c, 400, 'idempotency_key_missing', 'POST /v1/jobs needs an Idempotency-Key header'));
  if (keyParse.ok === false) {
    return unexecuted(
      problem(c, 400, 'invalid_request', keyParse.message, { errors: [{ path: 'headers.idempotency-key', message: keyParse.message }] }),
    );
  }
  // The body's problem was answered by readJson; keep its code, not a fault's.
  if (!body.ok) return unexecuted(body.response);
  const key = keyParse.key;
  const fp = draft.fingerprint!;

  const scope = { tenant: principal.tenant, subject: principal.subject, scope: SCOPE, key };
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) {
    return unexecuted(
      problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body; nothing was created'),
    );
  }
  if (known?.state === 'in_flight') return inProgress(core, c);
  if (known?.state === 'done') {
    // A `foreign_job_id` fault rewrites this replay in the seam.
    draft.job_id = known.job_id;
    draft.effect = 'replayed';
    draft.job_state = (JSON.parse(known.answer.body) as { state?: typeof draft.job_state }).state ?? null;
    return storedResponse(c, known.answer, true);
  }

  // Only a `delay` fault holds a create between its key's reservation and its execution; without one, reservation,
  // job and stored answer are one transaction (one commit instead of two), and no duplicate can come in between.
  const holds = c.get('fault')?.fault.type === 'delay';
  if (holds) await reserveThenHold(core, c, scope, fp);
  core.group.join();
  const answer = atomically(core.db, (): StoredAnswer => {
    const behavior = behaviorFor(core.behaviors.get(), body.value.kind);
    const job = core.engine.create(principal, body.value, behavior, { key, trace_id: c.get('traceId') });
    const location = `/v1/jobs/${job.job_id}`;
    const a: StoredAnswer =
      behavior.mode === 'sync'
        ? { status: 200, headers: { 'content-type': 'application/json', location }, body: JSON.stringify(core.engine.view(job)) }
        : {
            status: 202,
            headers: { 'content-type': 'application/json', location },
            body: JSON.stringify({ job_id: job.job_id, state: 'queued', status_url: location, created_at: isoTime(job.created_at) }),
          };
    // Held: the key was reserved before the hold. Not held: key and answer are stored at once, in the job's transaction.
    if (holds) core.idempotency.complete(scope, a, job.job_id, core.clock.now(), core.options.idempotencyTtlMs);
    else core.idempotency.store(scope, fp, a, job.job_id, core.clock.now(), core.options.idempotencyTtlMs);
    draft.effect = 'created';
    draft.job_id = job.job_id;
    draft.job_state = job.state;
    return a;
  });
  core.engine.scheduleCreated();
  return storedResponse(c, answer, false);
}
