import type { RequestEntry } from '../../../contract/journal.js';
import type { CheckContext, InvariantCheck } from '../context.js';
import {
  cameWhilePaused,
  delivered,
  describeRequest,
  failure,
  finalEntry,
  ms,
  normKey,
  reachedALiveWorker,
  sendTimeKnown,
  sentAt,
} from '../helpers.js';
import type { OperationView } from '../link.js';
import type { Failure } from '../verdict.js';

/** When the operation reached its final state (or never: still open at the end of the run). */
function endOf(op: OperationView): number {
  const end = finalEntry(op.record);
  return end ? ms(end.at) : Number.POSITIVE_INFINITY;
}

/** Delivered to a worker that lived to read it. */
function read(ctx: CheckContext, r: RequestEntry): boolean {
  return delivered(r) && reachedALiveWorker(r, ctx.journal.requests, ctx.evidence.harness, ctx.options.kill_read_window_ms);
}

/**
 * Whether the client was shown, in time to act before its final state, a job its key created other than the foreign
 * one: a create answer or a find it read (delivered to a worker that lived on, and not while that worker was
 * paused). Only then could it see that the replay's job is not the key's.
 */
function sawKeysJob(ctx: CheckContext, op: OperationView, foreign: RequestEntry, endAt: number): boolean {
  const own = new Set(op.jobIds.filter((id) => id !== foreign.job_id));
  const shown = (r: RequestEntry) =>
    (r.route === 'create' && r.job_id !== null && own.has(r.job_id)) ||
    (r.route === 'list' && (r.listed ?? []).some((l) => own.has(l.job_id)));
  return ctx.journal.requests.some(
    (r) =>
      (op.requests.includes(r) || (op.key !== null && normKey(r.idempotency_key) === op.key)) &&
      r.status < 300 &&
      read(ctx, r) &&
      !cameWhilePaused(r, ctx.evidence.harness) &&
      ms(r.at) <= endAt + ctx.options.clock_tolerance_ms &&
      shown(r),
  );
}

/**
 * The job ids the provider told the operation's client by `by`: the id of every delivered create answer (the foreign
 * one a replay served included), and every job a delivered find by its key (or linked to it) listed. Each once.
 * An answer counts once its worker lived to act on it (reachedALiveWorker): a worker killed before it sent anything
 * else may never have read it, and cannot be held to have written it down.
 */
function toldIds(ctx: CheckContext, op: OperationView, by: number): string[] {
  const before = (r: RequestEntry) => read(ctx, r) && r.status < 300 && ms(r.at) <= by;
  const fromCreates = op.creates.filter(before).map((c) => c.job_id);
  const finds = ctx.journal.requests.filter(
    (r) => r.route === 'list' && before(r) && (op.requests.includes(r) || (op.key !== null && normKey(r.idempotency_key) === op.key)),
  );
  const fromFinds = finds.flatMap((f) => (f.listed ?? []).map((l) => l.job_id));
  return [...new Set([...fromCreates, ...fromFinds].filter((id): id is string => id !== null))];
}

/**
 * I10: a replay read by the client that named a job the key never created, or a find (`GET /v1/jobs?…`) that
 * listed such a job next to the key's own (the lookup path of the same violation), must leave the operation in needs_attention,
 * with every job id it was told by then in its history, and no request for it after that (checking requests before
 * are fine: that is how the conflict is seen).
 */
export const i10ContractViolation: InvariantCheck = {
  id: 'I10',
  judge(ctx) {
    // An API without a key (both dialects, a keyless profile) replays no create, so no replay can answer with a foreign id.
    if (ctx.keyless) return { applicable: false, failures: [] };
    const failures: Failure[] = [];
    const isForeign = (r: RequestEntry) => r.effect === 'foreign_replay' && read(ctx, r);
    const ops = ctx.operations.filter((op) => op.creates.some(isForeign) || op.requests.some(isForeign));
    for (const op of ops) {
      const foreign = op.creates.find(isForeign) ?? op.requests.find(isForeign)!;
      const what = foreign.route === 'create' ? 'the replayed create' : 'the find';
      const history = op.record?.history ?? [];
      const entry = history.find((h) => h.to === 'needs_attention');
      if (op.record?.state !== 'needs_attention' && !sawKeysJob(ctx, op, foreign, endOf(op))) {
        // Never shown the key's own job, the client could not tell the replay's job was foreign: it may end unsure
        // (unconfirmed, timed out), but it must not have taken that job for its own.
        if (op.record?.remote_job_id === foreign.job_id)
          failures.push(
            failure(
              op.id,
              `${op.id}: ${what} ${describeRequest(foreign)} answered job ${foreign.job_id}, which its key never created (${op.jobIds.join(', ') || 'none'}), and the client took it for its own without a lookup confirming it; check a replay against GET /v1/jobs?idempotency_key= before following its job`,
              [foreign.seq],
              history,
            ),
          );
        continue;
      }
      if (op.record?.state !== 'needs_attention' || !entry) {
        failures.push(
          failure(
            op.id,
            `${op.id}: ${what} ${describeRequest(foreign)} answered job ${foreign.job_id}, which its key never created (${op.jobIds.join(', ') || 'none'}), yet it is ${op.record?.state ?? 'without record'}; check a replay against GET /v1/jobs?idempotency_key= and stop in needs_attention`,
            [foreign.seq, ...op.creates.filter((c) => c.effect === 'created').map((c) => c.seq)],
            history,
          ),
        );
        continue;
      }
      const text = JSON.stringify(history);
      const told = toldIds(ctx, op, ms(entry.at) + ctx.options.clock_tolerance_ms);
      const missing = told.filter((id) => !text.includes(id));
      if (missing.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} is in needs_attention but its history does not name ${missing.join(', ')} (told: ${told.join(', ')}); keep every job id the provider answered in the history`,
            [foreign.seq],
            [entry],
          ),
        );
      }
      const after = op.requests.filter((r) => sendTimeKnown(r) && sentAt(r) > ms(entry.at) + ctx.options.clock_tolerance_ms);
      if (after.length) {
        failures.push(
          failure(
            op.id,
            `${op.id} made ${after.length} call(s) after needs_attention (first: ${describeRequest(after[0]!)}); make no further calls for it`,
            after.map((r) => r.seq),
            [entry],
          ),
        );
      }
    }
    return { applicable: ops.length > 0, failures };
  },
};
