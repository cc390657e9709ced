// The azure-lro status monitor through @azure-rest/core-client and @azure/core-lro, for the durable loop
// (../sdk-clients/lib/durable.mjs). Every create carries the operation's Operation-Id (the API's repeatability
// key), so a resend — the pipeline's or the loop's — is answered by the same operation. The pipeline's own retries
// are off (maxRetries 0): its throttling strategy would wait any Retry-After, however long, inside one call; the
// loop bounds the wait by the operation's deadlines instead.
import { azureClient, operationIdOf, startPoller } from './azure-client.mjs';
import { keyOf } from './protocol.mjs';
import { checkItems, httpError } from './results.mjs';

const ok = (r) => {
  const status = Number(r.status);
  if (status >= 400) throw httpError(status, r.headers, `${status} ${JSON.stringify(r.body)}`);
  return r.body;
};

export function azureWire(env) {
  const client = azureClient(env, { retryOptions: { maxRetries: 0 } });
  const req = (opts) => ({ headers: opts.headers, timeout: opts.timeout });
  return {
    async create(op, opts, mine) {
      if (!mine()) return null;
      const poller = startPoller(client, op.request.input, { ...opts.headers, 'Operation-Id': keyOf(op) });
      await poller.submitted();
      const id = operationIdOf(poller);
      if (!id) throw new Error('the create answer named no Operation-Location');
      return { id };
    },
    /** The operation with this client reference, when the API has one (`clientReference` filter); null when none. */
    async find(op, opts, claimed) {
      const ref = op.request.input.clientReference;
      if (typeof ref !== 'string') return null;
      const body = ok(await client.path('/operations').get({ ...req(opts), queryParameters: { clientReference: ref } }));
      const hits = (body.value ?? []).filter((o) => !claimed.has(o.id));
      return hits.length > 1 ? 'ambiguous' : (hits[0] ?? null);
    },
    read: async (id, opts) => ok(await client.pathUnchecked(`/operations/${id}`).get(req(opts))),
    cancel: async (id, opts) => ok(await client.pathUnchecked(`/operations/${id}:cancel`).post(req(opts))),
    status: (o) => o.status,
    phase(o) {
      if (o.status === 'Succeeded') return 'succeeded';
      if (o.status === 'Failed') return 'failed';
      if (o.status === 'Canceled') return 'cancelled';
      return 'running';
    },
    async results(op, opts) {
      const o = ok(await client.pathUnchecked(`/operations/${op.batch_id}`).get(req(opts)));
      return checkItems(op.batch_id, o.result?.items, o.result?.sha256);
    },
  };
}
