import type { HarnessEvent } from '../evidence.js';
import type { CheckContext, InvariantCheck } from '../context.js';
import { describeRequest, failure, ms } from '../helpers.js';
import type { OperationView } from '../link.js';
import type { Failure } from '../verdict.js';

interface Pause {
  worker: string;
  pausedAt: number;
  expiredAt: number;
  resumedAt: number;
}

/** Pause windows from the harness log: pause → lease_expired → resume of the same worker. */
function pauses(events: readonly HarnessEvent[]): Pause[] {
  const sorted = [...events].sort((a, b) => ms(a.at) - ms(b.at));
  return sorted.flatMap((p) => {
    if (p.type !== 'pause' || !p.worker_id) return [];
    const after = (type: HarnessEvent['type']) => sorted.find((e) => e.type === type && e.worker_id === p.worker_id && ms(e.at) >= ms(p.at));
    const resumedAt = after('resume') ? ms(after('resume')!.at) : Infinity;
    const expiredAt = after('lease_expired') ? ms(after('lease_expired')!.at) : resumedAt;
    return [{ worker: p.worker_id, pausedAt: ms(p.at), expiredAt, resumedAt }];
  });
}

/** Another worker acted for the operation after the stale worker's lease expired: a request or a record change. */
function takenOver(ctx: CheckContext, op: OperationView, p: Pause): number | undefined {
  const times = [
    ...op.requests.filter((r) => r.worker_id && r.worker_id !== p.worker && ms(r.at) > p.expiredAt).map((r) => ms(r.at)),
    ...(op.record?.history ?? []).filter((h) => h.actor !== p.worker && ctx.workerIds.has(h.actor) && ms(h.at) > p.expiredAt).map((h) => ms(h.at)),
  ];
  return times.length ? Math.min(...times) : undefined;
}

/**
 * I9: once its lease was taken over, a paused worker sends at most the one request it had under way and changes
 * nothing in the record. A stale write is caught by time (after resume) and by place (after the new owner's
 * entries, whatever time it claims).
 */
export const i09SingleOwner: InvariantCheck = {
  id: 'I9',
  judge(ctx) {
    const failures: Failure[] = [];
    const windows = pauses(ctx.evidence.harness);
    for (const p of windows) {
      for (const op of ctx.operations) {
        const takeover = takenOver(ctx, op, p);
        if (takeover === undefined) continue;
        // Until someone else takes the operation, a resumed worker may carry on: only what follows the takeover is stale.
        const stale = op.requests.filter((r) => r.worker_id === p.worker && ms(r.at) > p.pausedAt && ms(r.at) >= takeover);
        if (stale.length > 1) {
          failures.push(failure(op.id, `${p.worker} sent ${stale.length} requests for ${op.id} after it was paused and its lease taken over (${stale.map(describeRequest).join('; ')}); check the lease before every request and every write`, stale.map((r) => r.seq)));
        }
        const history = op.record?.history ?? [];
        const firstNew = history.findIndex((h) => h.actor !== p.worker && ctx.workerIds.has(h.actor) && ms(h.at) > p.expiredAt);
        const writes = history.filter((h, i) => h.actor === p.worker && ((firstNew >= 0 && i > firstNew) || ms(h.at) >= Math.max(p.resumedAt, takeover)));
        if (writes.length) {
          failures.push(failure(op.id, `${p.worker} changed ${op.id}'s record after its lease was taken over (${writes.map((h) => `${h.from}→${h.to}`).join(', ')}); a worker that lost its lease must not write`, [], writes));
        }
      }
    }
    return { applicable: windows.length > 0, failures };
  },
};
