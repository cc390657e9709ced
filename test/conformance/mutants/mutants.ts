import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../../src/lib/clock.js';
import type { InProcessClientFactory, InProcessClientOptions } from '../../../src/contract/client-protocol.js';
import type { InvariantId } from '../../../src/contract/invariants.js';
import { ReferenceClient, SqliteOperationStore, type OperationStore } from '../../../src/reference-client/index.js';
import { signDelivery } from '../../../src/fake-provider/webhooks/signing.js';

/**
 * Deliberately broken clients: the reference client with one classic mistake each, injected at a seam (its fetch,
 * its clock or its store) so the mistake is exactly the one named and the rest of the client stays correct.
 * The judge must name `caughtBy` on `scenario`, and nothing must be flagged on the correct client.
 */
export interface Mutant {
  name: string;
  mistake: string;
  scenario: string;
  caughtBy: InvariantId;
  factory: InProcessClientFactory;
}

type FetchMw = (req: Request, next: (r: Request) => Promise<Response>, ctx: { opts: InProcessClientOptions }) => Promise<Response>;

function withFetch(mw: FetchMw): InProcessClientFactory {
  return (opts) => {
    const inner = opts.fetch;
    const next = (r: Request) => inner(r);
    const fetch: typeof globalThis.fetch = (input, init) => mw(new Request(input as RequestInfo, init), next, { opts });
    return new ReferenceClient({ ...opts, fetch });
  };
}

function withStore(wrap: (s: OperationStore) => Partial<OperationStore>): InProcessClientFactory {
  return (opts) => {
    const store = SqliteOperationStore.open(opts.state);
    const over = wrap(store);
    const proxy = new Proxy(store, {
      get: (target, prop, recv) => (prop in over ? (over as Record<string | symbol, unknown>)[prop] : Reflect.get(target, prop, recv)),
    }) as OperationStore;
    return new ReferenceClient(opts, proxy);
  };
}

function _withClock(wrap: (c: Clock) => Clock): InProcessClientFactory {
  return (opts) => new ReferenceClient({ ...opts, clock: wrap(opts.clock) });
}

const path = (r: Request) => new URL(r.url).pathname;
const isCreate = (r: Request) => r.method === 'POST' && path(r) === '/v1/jobs';
const jobPath = /^\/v1\/jobs\/([^/]+)$/;

async function rewriteJson(res: Response, f: (body: any) => any, headers?: Record<string, string | null>): Promise<Response> {
  const body = f(await res.json());
  const h = new Headers(res.headers);
  for (const [k, v] of Object.entries(headers ?? {})) v === null ? h.delete(k) : h.set(k, v);
  return new Response(JSON.stringify(body), { status: res.status, headers: h });
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/**
 * A client that believes whatever results body it is served (after `transform`): every digest and count it will
 * compare is re-stamped from that body, as if it checked nothing.
 */
function trusting(transform: (body: string) => string): FetchMw {
  const bodies = new Map<string, string>();
  return async (req, next, { opts }) => {
    const m = jobPath.exec(path(req));
    const res = await next(req);
    const served = async (jobId: string) => {
      if (!bodies.has(jobId)) {
        const r = await opts.fetch(new Request(new URL(`/v1/jobs/${jobId}/results`, req.url), { headers: req.headers }));
        bodies.set(jobId, transform(await r.text()));
      }
      return bodies.get(jobId)!;
    };
    const counts = (body: string) => ({
      total: body.split('\n').filter((l) => l.includes('"item_id"')).length,
      failed: body.split('\n').filter((l) => l.includes('"status":"failed"')).length,
    });
    if (req.method === 'GET' && m && res.status === 200) {
      const job = await res.clone().json();
      if (job.state !== 'succeeded' || !job.result) return res;
      const body = await served(job.job_id);
      const c = counts(body);
      return rewriteJson(res, (j) => ({
        ...j,
        result: {
          ...j.result,
          sha256: sha256(body).toString('hex'),
          size: Buffer.byteLength(body),
          items_total: c.total,
          items_failed: c.failed,
        },
      }));
    }
    if (req.method === 'GET' && path(req).endsWith('/results') && res.status === 200) {
      const body = await served(path(req).split('/')[3]!);
      const c = counts(body);
      const h = new Headers(res.headers);
      h.set('content-digest', `sha-256=:${sha256(body).toString('base64')}:`);
      h.set('x-items-total', String(c.total));
      h.set('x-items-failed', String(c.failed));
      return new Response(body, { status: 200, headers: h });
    }
    return res;
  };
}

/**
 * "Restart the process with a stale lease": the worker believes a lease it once held is still good. Renewals that
 * fail are ignored, an operation it held is stepped again under the old token whenever it is due, and a write the
 * store refuses (its CAS on the token) is made anyway, as the current holder.
 */
function staleLeaseStore(s: OperationStore): Partial<OperationStore> {
  // The operations this worker ever leased, with the token it got: its belief, never checked again; it steps them on
  // its own schedule (half a lease apart), whatever the record says is due.
  const mine = new Map<string, number>();
  const stepped = new Map<string, number>();
  return {
    renew: async (lease, now, leaseMs) => {
      await s.renew(lease, now, leaseMs);
      return true;
    },
    claimDue: async (owner, now, leaseMs, limit, held) => {
      const real = await s.claimDue(owner, now, leaseMs, limit, held);
      for (const l of real) mine.set(l.operation_id, l.token);
      for (const [id, token] of mine) {
        const row = await s.get(id);
        if (!row || real.some((l) => l.operation_id === id) || row.lease_owner === owner) continue;
        const open = ![
          'succeeded',
          'failed',
          'cancelled',
          'cancellation_unconfirmed',
          'result_timed_out',
          'result_unavailable',
          'result_validation_failed',
          'needs_attention',
        ].includes(row.state);
        if (open && now - (stepped.get(id) ?? -Infinity) >= leaseMs / 2) {
          stepped.set(id, now);
          real.push({ operation_id: id, owner, token, expires_at: now + leaseMs });
        }
      }
      return real;
    },
    commit: async (lease, change) => {
      const out = await s.commit(lease, change);
      if (out !== 'lease_lost') return out;
      // Write anyway, as if the lease were still ours; the record may refuse the step (another worker moved it on).
      const cur = await s.get(lease.operation_id);
      try {
        if (cur?.lease_owner) await s.commit({ ...lease, owner: cur.lease_owner, token: cur.fencing_token }, change);
      } catch {
        // The worker believes it wrote.
      }
      return 'ok';
    },
  };
}

/**
 * "Webhooks are signed, so why check": a receiver that verifies nothing and takes a final event's job for the
 * provider's word, answering its next status read with it. Every real final event is true, so only a forgery shows it.
 */
const trustsUnsignedWebhooks: InProcessClientFactory = (opts) => {
  const claims = new Map<string, unknown>();
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    const res = await opts.fetch(req);
    const m = jobPath.exec(path(req));
    if (!(req.method === 'GET' && m && res.status === 200 && claims.has(m[1]!))) return res;
    const h = new Headers(res.headers);
    h.delete('content-length');
    return new Response(JSON.stringify(claims.get(m[1]!)), { status: 200, headers: h });
  };
  const client = new ReferenceClient({ ...opts, fetch });
  const handle = client.handleWebhook.bind(client);
  client.handleWebhook = async (request) => {
    const body = await request.text();
    const event = JSON.parse(body) as { id: string; type: string; data?: { job_id?: string } };
    if (event.data?.job_id && /^job\.(succeeded|failed|cancelled|expired)$/.test(event.type)) claims.set(event.data.job_id, event.data);
    // Whatever signed it (or nothing did), the rest of the client sees a valid delivery.
    const headers = signDelivery(opts.webhook!.secret, request.headers.get('webhook-id') ?? event.id, body);
    return handle(new Request(request.url, { method: 'POST', headers: { ...headers }, body }));
  };
  return client;
};

/**
 * "The deadline is N ms from when I started": each worker counts an operation's deadlines from its own start, not
 * from the submission the record keeps. Only a worker started late in an operation's life shows it.
 */
const deadlineFromOwnStart: InProcessClientFactory = (opts) => {
  const startedAt = opts.clock.now();
  const shift = <T extends { submitted_at: number; create_deadline_at: number; result_deadline_at: number } | undefined>(row: T): T =>
    row && {
      ...row,
      create_deadline_at: startedAt + (row.create_deadline_at - row.submitted_at),
      result_deadline_at: startedAt + (row.result_deadline_at - row.submitted_at),
    };
  return withStore((store) => ({
    get: async (id) => shift(await store.get(id)),
    findByRemoteJobId: async (id) => shift(await store.findByRemoteJobId(id)),
  }))(opts);
};

export const mutants: Mutant[] = [
  {
    name: 'adopts-foreign-id',
    mistake: 'reads no find answer and takes a replayed create answer for its own without asking what its key created',
    scenario: 'foreign-job-id',
    caughtBy: 'I10',
    factory: withFetch(async (req, next) => {
      const res = await next(req);
      if (req.method === 'GET' && path(req) === '/v1/jobs' && res.status === 200) return rewriteJson(res, (b) => ({ ...b, data: [] }));
      if (!isCreate(req) || res.headers.get('idempotent-replayed') !== 'true') return res;
      const h = new Headers(res.headers);
      h.delete('idempotent-replayed');
      return new Response(res.body, { status: res.status, headers: h });
    }),
  },
  {
    name: 'deadline-from-own-start',
    mistake: "counts the result deadline from the worker's own start instead of the operation's record",
    scenario: 'killed-before-deadline',
    caughtBy: 'I12',
    factory: deadlineFromOwnStart,
  },
  {
    name: 'trusts-unsigned-webhooks',
    mistake: "never verifies a webhook's signature and takes a final event's job for the provider's word",
    scenario: 'forged-webhook',
    caughtBy: 'I13',
    factory: trustsUnsignedWebhooks,
  },
  {
    name: 'gives-up-after-one-5xx',
    mistake: 'takes one 5xx on its results fetch for results that are gone, and ends result_unavailable',
    scenario: 'flapping-5xx',
    caughtBy: 'I3',
    factory: withFetch(async (req, next) => {
      const res = await next(req);
      if (!(req.method === 'GET' && path(req).endsWith('/results') && res.status >= 500)) return res;
      return new Response(JSON.stringify({ code: 'results_gone', message: 'taken for gone' }), {
        status: 410,
        headers: { 'content-type': 'application/problem+json' },
      });
    }),
  },
  {
    name: 'new-key-on-retry',
    mistake: 'a fresh Idempotency-Key on every create attempt',
    scenario: 'lost-create-response',
    caughtBy: 'I2',
    factory: withFetch(async (req, next) => {
      if (!isCreate(req)) return next(req);
      const h = new Headers(req.headers);
      h.set('idempotency-key', `idem_${randomBytes(8).toString('hex')}`);
      return next(new Request(req, { headers: h }));
    }),
  },
  {
    name: 'fresh-trace-per-request',
    mistake: 'a new trace id on every request instead of one per operation',
    scenario: 'partial-batch',
    caughtBy: 'I14',
    factory: withFetch(async (req, next) => {
      const h = new Headers(req.headers);
      h.set('x-trace-id', `tr_${randomBytes(6).toString('hex')}`);
      return next(new Request(req, { headers: h }));
    }),
  },
  {
    name: 'trace-is-the-key',
    mistake: 'the idempotency key doubles as the trace id',
    scenario: 'partial-batch',
    caughtBy: 'I14',
    factory: withFetch(async (req, next) => {
      const key = req.headers.get('idempotency-key');
      if (!key || !isCreate(req)) return next(req);
      const h = new Headers(req.headers);
      h.set('x-trace-id', key);
      return next(new Request(req, { headers: h }));
    }),
  },
  {
    name: 'ignores-retry-after',
    mistake: 'never reads Retry-After: polls again on its own short schedule after a 429',
    scenario: 'rate-limited',
    caughtBy: 'I7',
    factory: withFetch(async (req, next) => {
      const res = await next(req);
      if (!res.headers.has('retry-after')) return res;
      const h = new Headers(res.headers);
      h.delete('retry-after');
      return new Response(res.body, { status: res.status, headers: h });
    }),
  },
  {
    name: 'cancel-ack-is-confirmation',
    mistake: 'takes the acknowledged cancel request for a cancelled job',
    scenario: 'cancel-race',
    caughtBy: 'I4',
    factory: withFetch(
      (() => {
        const asked = new Set<string>();
        return async (req, next) => {
          const res = await next(req);
          if (req.method === 'POST' && path(req).endsWith('/cancel') && res.status === 202) asked.add(path(req).split('/')[3]!);
          const m = jobPath.exec(path(req));
          const cancelledHere =
            (req.method === 'POST' && path(req).endsWith('/cancel') && res.status === 202) ||
            (m && req.method === 'GET' && asked.has(m[1]!) && res.status === 200);
          return cancelledHere ? rewriteJson(res, (job) => ({ ...job, state: 'cancelled' }), { 'retry-after': null }) : res;
        };
      })(),
    ),
  },
  {
    name: 'cancel-per-poll',
    mistake: 'sends the cancel again with every status poll',
    scenario: 'cancel-unconfirmed',
    caughtBy: 'I6',
    factory: withFetch(
      (() => {
        const cancelled = new Map<string, Request>();
        return async (req, next) => {
          if (req.method === 'POST' && path(req).endsWith('/cancel')) cancelled.set(path(req).split('/')[3]!, req.clone());
          const m = jobPath.exec(path(req));
          const prior = m && req.method === 'GET' ? cancelled.get(m[1]!) : undefined;
          if (prior) await next(prior.clone()).catch(() => undefined);
          return next(req);
        };
      })(),
    ),
  },
  {
    name: 'hot-loop-polling',
    mistake: 'polls again at once, without backoff',
    scenario: 'never-finishes',
    caughtBy: 'I8',
    factory: (opts) => {
      const store = SqliteOperationStore.open(opts.state);
      const hot = new Proxy(store, {
        get: (t, prop, recv) =>
          prop === 'commit'
            ? (lease: Parameters<OperationStore['commit']>[0], change: Parameters<OperationStore['commit']>[1]) =>
                t.commit(
                  lease,
                  'next_poll_at' in change.patch ? { ...change, patch: { ...change.patch, next_poll_at: opts.clock.now() + 5 } } : change,
                )
            : Reflect.get(t, prop, recv),
      }) as OperationStore;
      return new ReferenceClient(opts, hot);
    },
  },
  {
    name: 'hides-failed-items',
    mistake: 'drops failed items from a partial batch and reports it whole',
    scenario: 'partial-batch',
    caughtBy: 'I11',
    factory: withFetch(
      trusting((body) =>
        body
          .split('\n')
          .filter((l) => !l.includes('"status":"failed"'))
          .join('\n'),
      ),
    ),
  },
  {
    name: 'no-digest-check',
    mistake: 'accepts a results body whatever its digest',
    scenario: 'corrupt-result',
    caughtBy: 'I11',
    factory: withFetch(trusting((body) => body)),
  },
  {
    name: 'progress-100-is-success',
    mistake: 'takes progress 100 % for success and makes up the result',
    scenario: 'progress-lies',
    caughtBy: 'I4',
    factory: withFetch(async (req, next) => {
      const m = jobPath.exec(path(req));
      if (req.method === 'GET' && path(req).endsWith('/results')) {
        const res = await next(req);
        if (res.status !== 409) return res;
        return new Response('', {
          status: 200,
          headers: {
            'content-type': 'application/x-ndjson',
            'content-digest': `sha-256=:${sha256('').toString('base64')}:`,
            'x-items-total': '0',
            'x-items-failed': '0',
          },
        });
      }
      const res = await next(req);
      if (!(req.method === 'GET' && m && res.status === 200)) return res;
      return rewriteJson(res, (j) =>
        j.state === 'running' && j.progress.completed >= j.progress.total
          ? {
              ...j,
              state: 'succeeded',
              result: {
                url: `/v1/jobs/${j.job_id}/results`,
                sha256: sha256('').toString('hex'),
                content_type: 'application/x-ndjson',
                size: 0,
                items_total: 0,
                items_failed: 0,
              },
            }
          : j,
      );
    }),
  },
  {
    name: 'key-from-kind',
    mistake: 'derives the idempotency key from the job kind, so different requests share it',
    scenario: 'changed-parameters',
    caughtBy: 'I2',
    factory: withFetch(async (req, next) => {
      if (!isCreate(req)) return next(req);
      const body = await req.clone().json();
      const h = new Headers(req.headers);
      h.set('idempotency-key', `idem_${body.kind}`);
      return next(new Request(req, { headers: h }));
    }),
  },
  {
    name: 'cancel-terminal-is-cancelled',
    mistake: 'takes a 409 job_terminal answer to its cancel (the job ended first) for a cancelled job',
    scenario: 'cancel-after-end',
    caughtBy: 'I4',
    factory: withFetch(async (req, next) => {
      const res = await next(req);
      if (!(req.method === 'POST' && path(req).endsWith('/cancel') && res.status === 409)) return res;
      const body = await res.clone().json();
      if (body.code !== 'job_terminal' || !body.job) return res;
      return rewriteJson(res, (p) => ({ ...p, job: { ...p.job, state: 'cancelled', result: null } }));
    }),
  },
  {
    name: 'no-job-means-cancelled',
    mistake: 'takes "the provider shows no job" at the cancel deadline for proof that none will exist, and says cancelled',
    scenario: 'cancel-while-create-held',
    caughtBy: 'I4',
    factory: withStore((store) => ({
      commit: async (lease, change) => {
        const h = change.history;
        const last = h.at(-1);
        if (last?.to !== 'cancellation_unconfirmed' || h.at(-2)?.to !== 'cancel_requested') return store.commit(lease, change);
        const before = h.slice(0, -2);
        const prev = before.at(-1)?.to ?? (await store.get(lease.operation_id))?.state;
        // create_unknown may not end cancelled directly (client-protocol.md): through reconciliation, as the old code did.
        // The mistake reads the empty lookup as the answer: the table allows these moves on a lookup answer only.
        const lookup = { ...last.evidence, kind: 'lookup_answer' };
        const via =
          prev === 'create_unknown' ? [{ ...last, to: 'reconciliation' as const, cause: 'lookup shows no job', evidence: lookup }] : [];
        const cancelled = {
          ...last,
          to: 'cancelled' as const,
          cause: 'by the cancel deadline the provider shows no job',
          evidence: lookup,
        };
        return store.commit(lease, { ...change, history: [...before, ...via, cancelled] });
      },
    })),
  },
  {
    name: 'no-lease-token',
    mistake: 'sends no X-Lease-Token, so a stale worker cannot be told from the owner',
    scenario: 'stale-lease',
    caughtBy: 'I9',
    factory: withFetch(async (req, next) => {
      const h = new Headers(req.headers);
      h.delete('x-lease-token');
      return next(new Request(req, { headers: h }));
    }),
  },
  {
    name: 'no-lease-fencing',
    mistake: 'never checks that it still holds the lease: a worker resumed after a takeover carries on under its old token',
    scenario: 'stale-lease',
    caughtBy: 'I9',
    factory: withStore(staleLeaseStore),
  },
];
