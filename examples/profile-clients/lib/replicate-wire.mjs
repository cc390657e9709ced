// The Replicate predictions API through the official `replicate` client, for the durable loop
// (../sdk-clients/lib/durable.mjs). The client's own retry loop resends, back to back and whatever Retry-After says,
// a GET answered 429/5xx and any request whose connection failed — a create among them, and the API keeps no key
// (docs/profile-clients.md). Its `fetch` option is where that is stopped: a failed connection becomes an answer
// (599), and within one call the first 429/5xx/599 is handed back again for every retry without touching the
// network, so the loop sees it once, with its Retry-After, and decides — by listing, for a create.
import Replicate from 'replicate';
import { canonical as canon } from '../../sdk-clients/lib/store.mjs';
import { baseUrl, withVersion } from './protocol.mjs';
import { checkItems, httpError } from './results.mjs';

const LIST_WINDOW_MS = 60_000;

export function replicateWire(env) {
  let headers = {};
  let held = null;
  const replay = (h) => new Response(h.body, { status: h.status, headers: h.headers });
  const fetchOnce = async (url, init) => {
    if (held) return replay(held);
    const r = await fetch(url, { ...init, headers: { ...init.headers, ...headers } }).catch(
      (err) => new Response(JSON.stringify({ detail: `no answer: ${err?.cause?.code ?? err?.message}` }), { status: 599 }),
    );
    if (r.status !== 429 && r.status < 500) return r;
    held = { status: r.status, headers: new Headers(r.headers), body: await r.text() };
    return replay(held);
  };
  const replicate = new Replicate({ auth: env.token, baseUrl: `${baseUrl(env, 'replicate')}/v1`, fetch: fetchOnce });
  const call = async (opts, f) => {
    headers = opts.headers ?? {};
    held = null;
    try {
      return await f(opts.timeout ? AbortSignal.timeout(opts.timeout) : undefined);
    } catch (err) {
      if (err?.response) throw httpError(err.response.status, err.response.headers, err.message);
      throw err;
    }
  };
  return {
    create: (op, opts, mine) =>
      mine() ? call(opts, (signal) => replicate.predictions.create({ ...withVersion(op.request.input), signal })) : null,
    /** The prediction made for this input since the first attempt that no other operation owns; null when none. */
    async find(op, opts, claimed) {
      const since = (op.first_attempt_at ?? op.submitted_at) - LIST_WINDOW_MS;
      const want = canon(op.request.input.input);
      const hits = [];
      for await (const page of replicate.paginate(() => call(opts, (signal) => replicate.predictions.list({ signal })))) {
        for (const p of page) if (Date.parse(p.created_at) >= since && canon(p.input) === want && !claimed.has(p.id)) hits.push(p);
      }
      return hits.length > 1 ? 'ambiguous' : (hits[0] ?? null);
    },
    read: (id, opts) => call(opts, (signal) => replicate.predictions.get(id, { signal })),
    cancel: (id, opts) => call(opts, (signal) => replicate.predictions.cancel(id, { signal })),
    status: (p) => p.status,
    phase(p) {
      if (p.status === 'succeeded') return 'succeeded';
      if (p.status === 'failed' || p.status === 'aborted') return 'failed';
      if (p.status === 'canceled') return 'cancelled';
      return 'running';
    },
    async results(op, opts) {
      const p = await call(opts, (signal) => replicate.predictions.get(op.batch_id, { signal }));
      return checkItems(op.batch_id, p.output);
    },
  };
}
