// The google-lro API (AIP-151) through google-gax's operations client, for the durable loop
// (../sdk-clients/lib/durable.mjs). Every create carries the operation's key as AIP-155 `request_id`, so a resend is
// answered by the same operation; a lost create is found with the AIP-160 filter on `metadata.requestId`. gax's own
// retries are off (they ignore Retry-After); its errors are mapped to HTTP status and headers for classify().
import { gaxClient } from './gax-client.mjs';
import { keyOf } from './protocol.mjs';
import { checkItems, httpError } from './results.mjs';

export function gaxWire(env) {
  const gax = gaxClient(env);
  const gaxCall = async (f) => {
    try {
      return await f();
    } catch (err) {
      const status = err?.httpStatusCode ?? err?.status;
      if (typeof status === 'number') throw httpError(status, err.headers ?? gax.lastHeaders(), err.message);
      throw err;
    }
  };
  // `retry: null`: gax would retry reads on UNAVAILABLE every 100 ms ×1.3, blind to Retry-After; the loop decides.
  const call = (opts) => ({ timeout: opts.timeout, retry: null, otherArgs: { headers: opts.headers } });
  /** The job id the record keeps (and the judge links by): the operation name without its collection. */
  const bare = (name) => name.replace(/^operations\//, '');
  const view = (op) => ({ ...op, id: bare(op.name) });
  return {
    async create(op, opts, mine) {
      if (!mine()) return null;
      const o = await gaxCall(() =>
        gax.create({ ...op.request.input, request_id: keyOf(op) }, opts.headers, AbortSignal.timeout(opts.timeout ?? 5000)),
      );
      return { ...o, id: bare(o.name) };
    },
    async find(op, opts) {
      const found = [];
      for await (const o of gax.ops.listOperationsAsync({ name: 'operations', filter: `metadata.requestId="${keyOf(op)}"` }, call(opts)))
        found.push(o);
      return found.length > 1 ? 'ambiguous' : found[0] ? view(found[0]) : null;
    },
    read: (id, opts) => gaxCall(async () => (await gax.ops.getOperation({ name: `operations/${id}` }, call(opts)))[0]),
    cancel: (id, opts) => gaxCall(() => gax.ops.cancelOperation({ name: `operations/${id}` }, call(opts))),
    status: (o) => (o.done ? (o.error ? `done, error ${o.error.code}` : 'done') : 'running'),
    phase(o) {
      if (!o.done) return 'running';
      if (o.error) return o.error.code === 1 ? 'cancelled' : 'failed';
      return 'succeeded';
    },
    async results(op, opts) {
      const [o] = await gaxCall(() => gax.ops.getOperation({ name: `operations/${op.batch_id}` }, call(opts)));
      const report = gax.decodeReport(o);
      return checkItems(op.batch_id, report?.items, report?.sha256);
    },
  };
}
