import type { HistoryEntry } from '../../../contract/client-protocol.js';
import type { RequestEntry } from '../../../contract/journal.js';
import type { InvariantCheck } from '../context.js';
import { describeRequest, failure, ms } from '../helpers.js';
import type { Failure } from '../verdict.js';

const tokenOf = (x: { lease_token?: number | null }) => (typeof x.lease_token === 'number' ? x.lease_token : null);

/**
 * I9 by fencing tokens (client-protocol.md "Lease tokens"): no request is sent and no history entry is written under
 * a lease token older than one already used for the operation, beyond the one request a worker already had under way
 * when it lost the lease. Nothing else: a worker that took the lease back with a newer token is the owner again, so
 * a fleet that claims work per step is not flagged for doing it fairly.
 */
export const i09SingleOwner: InvariantCheck = {
  id: 'I9',
  judge(ctx) {
    const failures: Failure[] = [];
    let applicable = false;
    const tolerance = ctx.options.clock_tolerance_ms;
    for (const op of ctx.operations) {
      const requests = op.requests.filter((r) => r.worker_id !== null && ctx.workerIds.has(r.worker_id));
      const writes = (op.record?.history ?? []).filter((h) => ctx.workerIds.has(h.actor));
      const workers = new Set<string>([...requests.map((r) => r.worker_id!), ...writes.map((h) => h.actor)]);
      // One worker alone cannot act under a lease someone else took: nothing to judge.
      if (workers.size < 2) continue;
      applicable = true;
      const bare = requests.filter((r) => tokenOf(r) === null);
      const bareWrites = writes.filter((h) => tokenOf(h) === null);
      if (bare.length || bareWrites.length) {
        failures.push(
          failure(
            op.id,
            `${workers.size} workers acted for ${op.id}, but ${bare.length ? `${bare.length} request(s) carried no X-Lease-Token` : ''}${bare.length && bareWrites.length ? ' and ' : ''}${bareWrites.length ? `${bareWrites.length} history entr(ies) no lease_token` : ''}: without the fencing token a stale worker cannot be told from the owner; send the lease's token on every request and record it on every entry`,
            bare.map((r) => r.seq),
            bareWrites,
          ),
        );
        continue;
      }
      // Requests in the order the provider received them; each (worker, token) may have one request under way when
      // a newer token appears (sent before the worker knew it had lost the lease).
      const ordered = [...requests].sort((a, b) => ms(a.received_at) - ms(b.received_at) || a.seq - b.seq);
      let newest = -Infinity;
      const newestAt: Array<{ token: number; at: number }> = [];
      const underWay = new Set<string>();
      const stale: RequestEntry[] = [];
      for (const r of ordered) {
        const t = tokenOf(r)!;
        if (t >= newest) {
          if (t > newest) newestAt.push({ token: t, at: ms(r.received_at) });
          newest = t;
          continue;
        }
        const key = `${r.worker_id}\u0000${t}`;
        if (underWay.has(key)) stale.push(r);
        else underWay.add(key);
      }
      if (stale.length) {
        failures.push(
          failure(
            op.id,
            `${stale.length} request(s) for ${op.id} were sent under a lease token older than one already used (${stale.map((r) => `${r.worker_id} token ${tokenOf(r)}: ${describeRequest(r)}`).join('; ')}); check the lease before every request`,
            stale.map((r) => r.seq),
          ),
        );
      }
      // Writes: by place (after an entry under a newer token, whatever time it claims) and by time (after a request
      // under a newer token reached the provider).
      const staleWrites: HistoryEntry[] = [];
      let newestWrite = -Infinity;
      for (const h of writes) {
        const t = tokenOf(h)!;
        const newerRequest = newestAt.find((n) => n.token > t && n.at < ms(h.at) - tolerance);
        if (t < newestWrite || newerRequest) staleWrites.push(h);
        newestWrite = Math.max(newestWrite, t);
      }
      if (staleWrites.length) {
        failures.push(
          failure(
            op.id,
            `${op.id}'s record was changed under a lease token older than one already used (${staleWrites.map((h) => `${h.actor} token ${tokenOf(h)}: ${h.from}→${h.to}`).join(', ')}); a worker that lost its lease must not write`,
            [],
            staleWrites,
          ),
        );
      }
    }
    return { applicable, failures };
  },
};
