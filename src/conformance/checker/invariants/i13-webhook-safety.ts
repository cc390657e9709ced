import type { CheckContext, InvariantCheck } from '../context.js';
import {
  delivered,
  failure,
  iso,
  isFinal,
  ms,
  readableAt,
  sentAt,
  statesReporting,
  TERMINAL_ANSWER_STATES,
  shownStates,
} from '../helpers.js';
import type { Failure } from '../verdict.js';

/** Record states reached only once the client believes the job is over. */
const AFTER_JOB_END = new Set(['result_collecting', 'succeeded', 'failed', 'cancelled', 'result_unavailable', 'result_validation_failed']);

/**
 * The read that confirms a job in the client's own API, as the journal shows it: a status read of this job the
 * client made, or one of another job with the id put in (the wire's path either way, `GET /openai/v1/batches/…` as
 * much as `GET /v1/jobs/…`), else the plain words.
 */
function statusReadOf(ctx: CheckContext, job: string): string {
  const reads = ctx.journal.requests.filter((r) => r.route === 'status');
  const own = reads.find((r) => r.job_id === job);
  if (own) return `${own.method} ${own.path}`;
  const other = reads.find((r) => r.job_id && r.path.includes(r.job_id));
  return other ? `${other.method} ${other.path.replace(other.job_id!, job)}` : `a status read of job ${job}`;
}

/**
 * I13, for jobs that had webhooks (delivered, duplicated, reordered, dropped or forged): results fetched once, an
 * authoritative read (status, cancel or the create itself) showing the job final before the client acts on its
 * end, the final state the provider's outcome, and a final state reached even when no webhook came.
 */
export const i13WebhookSafety: InvariantCheck = {
  id: 'I13',
  judge(ctx) {
    // The Anthropic Message Batches API sends no webhooks, so neither does its dialect.
    if (ctx.dialect === 'anthropic') return { applicable: false, failures: [] };
    const failures: Failure[] = [];
    let applicable = false;
    const tol = ctx.options.clock_tolerance_ms;
    for (const op of ctx.operations) {
      for (const job of op.jobIds) {
        const facts = ctx.jobFacts(job);
        if (!facts?.webhooks.length && !facts?.forged.length) continue;
        applicable = true;
        const hooks = [...facts.webhooks, ...facts.forged].map((w) => w.seq);
        // A forged delivery the client accepted (2xx): named in the failures below, as what it acted on.
        const accepted = facts.forged.filter((w) => w.outcome === 'delivered');
        const forgedNote = accepted.length
          ? ` (it accepted a forged webhook, #${accepted[0]!.seq} ${accepted[0]!.event_type} ${accepted[0]!.forged === 'unsigned' ? 'unsigned' : 'signed with a wrong secret'}: verify the signature)`
          : '';
        const served = op.requests.filter((r) => r.job_id === job && r.effect === 'results_served' && r.status === 200 && delivered(r));
        // Not counted: an answer that came while its worker was paused, which that worker then fetched again — the
        // request's timeout may have given it up at the resume (readableAt), so the client had not had the results —
        // and a fetch still under way when a newer lease holder fetched (the one request a worker may have under way
        // when it loses its lease, I9): two fetches of a takeover, not of a webhook.
        const fetches = served.filter((r) => {
          const readable = readableAt(r, ctx.evidence.harness);
          const later = served.filter((q) => q.seq !== r.seq && sentAt(q) >= sentAt(r));
          const fetchedAgain = readable !== ms(r.at) && later.some((q) => q.worker_id === r.worker_id);
          const overtaken = later.some((q) => (q.lease_token ?? -1) > (r.lease_token ?? Infinity) && sentAt(q) <= readable);
          return !fetchedAgain && !overtaken;
        });
        if (fetches.length > 1) {
          failures.push(
            failure(op.id, `${op.id} fetched job ${job}'s results ${fetches.length} times; fetch once, whatever the webhooks say`, [
              ...fetches.map((r) => r.seq),
              ...hooks,
            ]),
          );
        }
        const history = op.record?.history ?? [];
        const acted = history.find((h) => AFTER_JOB_END.has(h.to));
        if (acted) {
          const read = op.requests.find(
            (r) =>
              ['status', 'cancel', 'create', 'list'].includes(r.route ?? '') &&
              delivered(r) &&
              shownStates(r, job).some((st) => TERMINAL_ANSWER_STATES.includes(st as (typeof TERMINAL_ANSWER_STATES)[number])) &&
              ms(r.at) <= ms(acted.at) + tol,
          );
          if (!read)
            failures.push(
              failure(
                op.id,
                `${op.id} moved to ${acted.to} at ${acted.at} without a status read showing job ${job} final${forgedNote}; a webhook is a hint, confirm it with ${statusReadOf(ctx, job)}`,
                hooks,
                [acted],
              ),
            );
        }
        const state = op.record?.state;
        if (
          facts.final &&
          state &&
          ['succeeded', 'failed', 'cancelled'].includes(state) &&
          !statesReporting(facts.final.state).includes(state)
        ) {
          failures.push(
            failure(
              op.id,
              `${op.id} ended ${state} but job ${job} ended ${facts.final.state}${forgedNote}; a late, out-of-order or forged webhook must not change the outcome`,
              [facts.final.seq, ...hooks],
              history.slice(-1),
            ),
          );
        }
        const waitedOut = facts.final && ctx.journal.endAt > facts.final.at + ctx.options.poll_cap_ms + ctx.options.deadline_grace_ms;
        if (waitedOut && !isFinal(op.record)) {
          failures.push(
            failure(
              op.id,
              `${op.id} is still ${state ?? 'without record'} although job ${job} ended ${facts.final!.state} at ${iso(facts.final!.at)}; keep polling, webhooks can be missing`,
              [facts.final!.seq, ...hooks],
              history.slice(-1),
            ),
          );
        }
      }
    }
    return { applicable, failures };
  },
};
