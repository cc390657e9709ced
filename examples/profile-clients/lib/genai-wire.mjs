// The Gemini Batch API through @google/genai (one attempt per call: its default), for the durable loop
// (../sdk-clients/lib/durable.mjs). The SDK's `httpOptions.fetch` hook keeps the last raw answer: the SDK parses a
// batch into its own types and keeps only `response`/`metadata` of each inlined response, and its ApiError carries
// no headers — the loop needs the items as the API sent them (to check them) and Retry-After.
import { GoogleGenAI } from '@google/genai';
import { displayNameOf, genaiParams } from './genai-body.mjs';
import { baseUrl } from './protocol.mjs';
import { checkItems, httpError } from './results.mjs';

const LIST_WINDOW_MS = 60_000;
/** The job id the record keeps (and the judge links by): the resource name without its collection. */
const bare = (name) => name.replace(/^batches\//, '');

export function genaiWire(env) {
  let last = null;
  const fetchKeep = async (url, init) => {
    const r = await fetch(url, init);
    last = { status: r.status, headers: r.headers, json: r.headers.get('content-type')?.includes('json') ? await r.clone().json() : null };
    return r;
  };
  const ai = new GoogleGenAI({
    apiKey: env.token,
    apiVersion: 'v1beta',
    httpOptions: { baseUrl: baseUrl(env, 'gemini-batch'), fetch: fetchKeep },
  });
  const http = (opts) => ({ httpOptions: { headers: opts.headers, timeout: opts.timeout } });
  const call = async (f) => {
    last = null;
    try {
      return await f();
    } catch (err) {
      if (typeof err?.status === 'number') throw httpError(err.status, last?.headers, err.message);
      throw err;
    }
  };
  return {
    async create(op, opts, mine) {
      if (!mine()) return null;
      const p = genaiParams(op.request.input);
      const b = await call(() => ai.batches.create({ ...p, config: { ...p.config, ...http(opts) } }));
      return { ...b, id: bare(b.name) };
    },
    /** The batch with this operation's displayName (its client reference) made since the first attempt; null when none. */
    async find(op, opts, claimed) {
      const since = (op.first_attempt_at ?? op.submitted_at) - LIST_WINDOW_MS;
      const want = displayNameOf(op.request.input);
      const hits = [];
      for await (const b of await call(() => ai.batches.list({ config: { pageSize: 100, ...http(opts) } }))) {
        if (b.displayName === want && Date.parse(b.createTime) >= since && !claimed.has(bare(b.name)))
          hits.push({ ...b, id: bare(b.name) });
      }
      return hits.length > 1 ? 'ambiguous' : (hits[0] ?? null);
    },
    read: (id, opts) => call(() => ai.batches.get({ name: `batches/${id}`, config: http(opts) })),
    cancel: (id, opts) => call(() => ai.batches.cancel({ name: `batches/${id}`, config: http(opts) })),
    status: (b) => b.state,
    phase(b) {
      if (b.state === 'JOB_STATE_SUCCEEDED') return 'succeeded';
      if (b.state === 'JOB_STATE_FAILED' || b.state === 'JOB_STATE_EXPIRED') return 'failed';
      if (b.state === 'JOB_STATE_CANCELLED') return 'cancelled';
      return 'running';
    },
    async results(op, opts) {
      await call(() => ai.batches.get({ name: `batches/${op.batch_id}`, config: http(opts) }));
      const raw =
        last?.json?.metadata?.output?.inlinedResponses?.inlinedResponses ?? last?.json?.response?.inlinedResponses?.inlinedResponses;
      return checkItems(op.batch_id, raw);
    },
  };
}
