import type { Ctx } from '../http/context.js';
import { jsonAnswer, problem } from '../http/problem.js';
import { leanAnswer } from '../http/answer.js';
import { jobFor, type ProfileDeps, retryAfter } from './answers.js';
import { renderView, renderWithView } from './view.js';

/** The cancel route: a request, not a fact (the engine's commit point decides); refused where the profile says. */
export function cancelJob(d: ProfileDeps, c: Ctx, id: string): Response {
  const spec = d.profile.cancel!;
  const job = jobFor(d, c, id);
  if (job instanceof Response) return job;
  const now = d.core.clock.now();
  if (!('route' in spec)) {
    const code = spec.unsupported.status === 405 ? 'method_not_allowed' : 'not_implemented';
    return problem(c, spec.unsupported.status, code, 'this API cannot cancel a job');
  }
  if (!spec.from.includes(job.state)) {
    if (spec.refused.answer === 'view') return jsonAnswer(c, renderView(d.profile, job, now), spec.refused.status);
    return problem(c, spec.refused.status, spec.refused.code, `job ${id} is already ${job.state}; nothing to cancel`, {
      job: renderView(d.profile, job, now),
    });
  }
  const result = d.core.db.transaction(() => d.core.engine.cancel(job))();
  const draft = c.get('draft');
  draft.job_state = result.job.state;
  if (result.kind === 'terminal')
    return problem(c, 409, 'job_terminal', `job ${id} is already ${job.state}`, { job: renderView(d.profile, job, now) });
  draft.effect = result.kind === 'accepted' ? 'cancel_requested' : 'cancel_repeated';
  const headers = retryAfter(d, result.job);
  if (spec.body === null) return leanAnswer(c, null, spec.status, headers);
  return jsonAnswer(c, renderWithView(d.profile, spec.body, result.job, d.core.clock.now()), spec.status, headers);
}
