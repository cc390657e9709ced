import { fingerprint } from '../../../lib/canonical-json.js';
import { isoTime } from '../../../lib/clock.js';
import type { ProviderCore } from '../../core.js';
import { behaviorFor } from '../../../contract/behavior.js';
import { CreateJobBodySchema } from '../../../contract/jobs.js';
import type { StoredAnswer } from '../../store/idempotency-repo.js';
import { afterExecution, beforeExecution, decideFault } from '../apply-faults.js';
import { authenticate } from '../auth.js';
import { readJson } from '../body.js';
import type { Ctx } from '../context.js';
import { parseIdempotencyKey } from '../idempotency-key.js';
import { problem } from '../problem.js';
import { inProgress, reserveThenDelay, storedResponse } from '../guarded.js';

const SCOPE = 'POST /v1/jobs';

/** A replay that names a job the key never created: the contract violation of the `foreign_job_id` fault. */
function foreignReplay(core: ProviderCore, a: StoredAnswer, realId: string): StoredAnswer {
  const fake = core.ids('job');
  const swap = (s: string) => s.split(realId).join(fake);
  const headers = Object.fromEntries(Object.entries(a.headers).map(([k, v]) => [k, swap(v)]));
  return { status: a.status, headers, body: swap(a.body) };
}

/** `POST /v1/jobs`: idempotent create per the IETF draft, scoped to tenant + subject. */
export async function createJob(core: ProviderCore, c: Ctx): Promise<Response> {
  const draft = c.get('draft');
  draft.route = 'create';
  const principal = authenticate(core, c);
  if (principal instanceof Response) return principal;
  // Key and body are read before the fault decision so that even a refused request is journalled with them:
  // the judge links create attempts to operations by key and client_ref.
  const keyParse = parseIdempotencyKey(c.req.header('idempotency-key'));
  if (keyParse.ok === true) draft.idempotency_key = keyParse.key;
  const body = await readJson(c, CreateJobBodySchema);
  if (body.ok) {
    draft.fingerprint = fingerprint(body.raw);
    draft.client_ref = body.value.client_ref ?? null;
  }
  const fired = decideFault(core, c, 'create');
  const refused = beforeExecution(core, c, fired);
  if (refused) return refused;

  if (keyParse.ok === 'missing') return problem(c, 400, 'idempotency_key_missing', 'POST /v1/jobs needs an Idempotency-Key header');
  if (keyParse.ok === false) return problem(c, 400, 'invalid_request', keyParse.message, { errors: [{ path: 'headers.idempotency-key', message: keyParse.message }] });
  if (!body.ok) {
    // The body's problem was answered by readJson; keep its code, not a fault's.
    return body.response;
  }
  const key = keyParse.key;
  const fp = draft.fingerprint!;

  const scope = { tenant: principal.tenant, subject: principal.subject, scope: SCOPE, key };
  const known = core.idempotency.lookup(scope, core.clock.now());
  if (known && known.fingerprint !== fp) {
    return problem(c, 422, 'idempotency_key_reused', 'this Idempotency-Key was used with a different request body; nothing was created');
  }
  if (known?.state === 'in_flight') {
    return inProgress(core, c);
  }
  if (known?.state === 'done') {
    draft.job_id = known.job_id;
    if (fired?.fault.type === 'foreign_job_id' && known.job_id) {
      draft.effect = 'foreign_replay';
      return afterExecution(c, fired, storedResponse(foreignReplay(core, known.answer, known.job_id), true));
    }
    draft.effect = 'replayed';
    draft.job_state = (JSON.parse(known.answer.body) as { state?: typeof draft.job_state }).state ?? null;
    return afterExecution(c, fired, storedResponse(known.answer, true));
  }

  await reserveThenDelay(core, c, scope, fp, fired);
  const answer = core.db.transaction((): StoredAnswer => {
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
    core.idempotency.complete(scope, a, job.job_id, core.clock.now(), core.options.idempotencyTtlMs);
    draft.effect = 'created';
    draft.job_id = job.job_id;
    draft.job_state = job.state;
    return a;
  })();
  core.engine.reschedule();
  return afterExecution(c, fired, storedResponse(answer, false));
}
