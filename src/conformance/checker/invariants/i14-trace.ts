import type { InvariantCheck } from '../context.js';
import { describeRequest, failure, normKey } from '../helpers.js';
import type { Failure } from '../verdict.js';

/** I14: every request of an operation carries its one trace id; the trace id is not the key nor another's. */
export const i14Trace: InvariantCheck = {
  id: 'I14',
  judge(ctx) {
    const failures: Failure[] = [];
    const ops = ctx.operations.filter((op) => op.record && op.requests.length > 0);
    const owners = new Map<string, string>();
    for (const op of ops) {
      const trace = op.record!.trace_id;
      if (trace === null) {
        failures.push(
          failure(
            op.id,
            `${op.id}'s record has no trace id (trace_id null); choose one per operation, record it and send it as X-Trace-ID on every request for it`,
          ),
        );
        continue;
      }
      const off = op.requests.filter((r) => r.trace_id !== trace);
      if (off.length) {
        failures.push(
          failure(
            op.id,
            `${op.id}'s trace id is ${trace}, but ${off.length} of its requests carried another (first: ${describeRequest(off[0]!)} with X-Trace-ID ${off[0]!.trace_id ?? 'missing'}); send X-Trace-ID ${trace} on every request for it`,
            off.map((r) => r.seq),
          ),
        );
      }
      if (normKey(trace) === op.key) {
        failures.push(
          failure(
            op.id,
            `${op.id} uses its idempotency key as its trace id; the key is a secret of the create, the trace id is for logs: make them different`,
            op.creates.map((c) => c.seq),
          ),
        );
      }
      const other = owners.get(trace);
      if (other) failures.push(failure(op.id, `${op.id} shares trace id ${trace} with ${other}; one trace id per operation`, []));
      else owners.set(trace, op.id);
    }
    return { applicable: ops.length > 0, failures };
  },
};
