#!/usr/bin/env node
// A deliberately broken client for the PROCESS runner: the built reference client (dist/, `npm run build`) with one
// classic mistake patched in before its CLI starts — the same mistakes as the in-process mutants of mutants.ts of
// the same names, so the catalog is shown to catch them through real processes, not only in-process.
//   node test/conformance/mutants/process/client.mjs MUTANT submit|cancel|work|show …
import { fileURLToPath } from 'node:url';

const dist = new URL('../../../../dist/', import.meta.url);
const [node, , mutant, ...verb] = process.argv;
const { SqliteOperationStore } = await import(new URL('reference-client/store/sqlite-store.js', dist).href);

const wrapFetch = (mw) => {
  const inner = globalThis.fetch;
  globalThis.fetch = (input, init) => mw(new Request(input, init), (r) => inner(r));
};

const MUTANTS = {
  // Never verifies a webhook's signature and takes a final event for the provider's word: the next read of the job
  // shows what the event claimed (native: the event's job; OpenAI: the batch status its type names). Whatever signed
  // a delivery (or nothing did), the rest of the client sees a valid one.
  'trusts-unsigned-webhooks': async () => {
    const { WebhookReceiver } = await import(new URL('reference-client/webhook-receiver.js', dist).href);
    const { signDelivery } = await import(new URL('fake-provider/webhooks/signing.js', dist).href);
    const claims = new Map();
    const handle = WebhookReceiver.prototype.handle;
    WebhookReceiver.prototype.handle = async function (request) {
      const body = await request.text();
      const event = JSON.parse(body);
      const native = /^job\.(succeeded|failed|cancelled|expired)$/.test(event.type) && event.data?.job_id;
      const batch = /^batch\.(completed|failed|cancelled|expired)$/.exec(event.type);
      if (native) claims.set(event.data.job_id, () => event.data);
      if (batch && event.data?.id) claims.set(event.data.id, (b) => ({ ...b, status: batch[1] }));
      const headers = signDelivery(process.env.JOBPROOF_WEBHOOK_SECRET, request.headers.get('webhook-id') ?? event.id, body);
      return handle.call(this, new Request(request.url, { method: 'POST', headers: { ...headers }, body }));
    };
    wrapFetch(async (req, next) => {
      const res = await next(req);
      const m = /\/(?:v1\/jobs|v1\/batches)\/([^/]+)$/.exec(new URL(req.url).pathname);
      const claim = req.method === 'GET' && res.status === 200 && m && claims.get(m[1]);
      if (!claim) return res;
      const h = new Headers(res.headers);
      h.delete('content-length');
      return new Response(JSON.stringify(claim(await res.json())), { status: 200, headers: h });
    });
  },
  // Takes a 409 job_terminal answer to its cancel (the job ended first) for a cancelled job.
  'cancel-terminal-is-cancelled': () =>
    wrapFetch(async (req, next) => {
      const res = await next(req);
      if (!(req.method === 'POST' && new URL(req.url).pathname.endsWith('/cancel') && res.status === 409)) return res;
      const body = await res.clone().json();
      if (body.code !== 'job_terminal' || !body.job) return res;
      return new Response(JSON.stringify({ ...body, job: { ...body.job, state: 'cancelled', result: null } }), {
        status: 409,
        headers: res.headers,
      });
    }),
  // Sends no X-Lease-Token.
  'no-lease-token': () =>
    wrapFetch((req, next) => {
      const h = new Headers(req.headers);
      h.delete('x-lease-token');
      return next(new Request(req, { headers: h }));
    }),
  // Never checks that it still holds the lease: a worker resumed after a takeover carries on under its old token.
  'no-lease-fencing': () => {
    const p = SqliteOperationStore.prototype;
    const { renew, claimDue, commit } = p;
    const FINAL = [
      'succeeded',
      'failed',
      'cancelled',
      'cancellation_unconfirmed',
      'result_timed_out',
      'result_unavailable',
      'result_validation_failed',
      'needs_attention',
    ];
    // The operations this worker ever leased, with the token it got: its belief, never checked again; it steps them
    // on its own schedule (half a lease apart), whatever the record says is due.
    const mine = new Map();
    const stepped = new Map();
    p.renew = async function (lease, now, leaseMs) {
      await renew.call(this, lease, now, leaseMs);
      return true;
    };
    p.claimDue = async function (owner, now, leaseMs, limit, held) {
      const real = await claimDue.call(this, owner, now, leaseMs, limit, held);
      for (const l of real) mine.set(l.operation_id, l.token);
      for (const [id, token] of mine) {
        const row = await this.get(id);
        if (!row || real.some((l) => l.operation_id === id) || row.lease_owner === owner) continue;
        if (!FINAL.includes(row.state) && now - (stepped.get(id) ?? -Infinity) >= leaseMs / 2) {
          stepped.set(id, now);
          real.push({ operation_id: id, owner, token, expires_at: now + leaseMs });
        }
      }
      return real;
    };
    p.commit = async function (lease, change) {
      const out = await commit.call(this, lease, change);
      if (out !== 'lease_lost') return out;
      const cur = await this.get(lease.operation_id);
      try {
        if (cur?.lease_owner) await commit.call(this, { ...lease, owner: cur.lease_owner, token: cur.fencing_token }, change);
      } catch {
        // The worker believes it wrote.
      }
      return 'ok';
    };
  },
};

if (!MUTANTS[mutant]) {
  process.stderr.write(`unknown mutant '${mutant}'; known: ${Object.keys(MUTANTS).join(', ')}\n`);
  process.exit(2);
}
await MUTANTS[mutant]();
const main = new URL('cli/main.js', dist);
process.argv = [node, fileURLToPath(main), 'client', ...verb];
await import(main.href);
