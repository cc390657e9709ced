// client-protocol.md for the profile example clients: the sdk-clients' store and verbs, with two differences a
// profile makes: `submit`'s `input` is the request body the API takes (not a batch of requests), and `show` names
// the idempotency key the client sends (derived from the operation, so every worker and every retry sends the same
// one), or null for an API that takes none.
import { createHash } from 'node:crypto';
import { Store } from '../../sdk-clients/lib/store.mjs';
import { env } from '../../sdk-clients/lib/protocol.mjs';

export { sleep } from '../../sdk-clients/lib/protocol.mjs';
import { sleep } from '../../sdk-clients/lib/protocol.mjs';

function fail(code, msg) {
  process.stderr.write(`client: ${msg}\n`);
  process.exit(code);
}

async function stdinJson() {
  let s = '';
  for await (const c of process.stdin) s += c;
  try {
    return JSON.parse(s);
  } catch {
    fail(2, 'stdin is not JSON');
  }
}

/** The operation's idempotency key: one per operation and request (a changed request is a new operation). */
export function keyOf(op) {
  return `jp-${createHash('sha256').update(`${op.id}\n${op.fingerprint}`).digest('hex').slice(0, 32)}`;
}

/** The profile's base URL: JOBPROOF_BASE_URL when the harness gives it, else the built-in prefix on the provider. */
export const baseUrl = (env, profile) => (process.env.JOBPROOF_BASE_URL ?? `${env.root}/profiles/${profile}`).replace(/\/$/, '');

/**
 * The body the `replicate` client will send: it refuses a prediction with neither `version` nor `model` (the
 * client's own choice of model, which a harness body need not carry), so an example client names its own.
 */
export const withVersion = (input) => (input.version || input.model ? input : { version: 'jobproof-example', ...input });

/** Run one invocation. `keyed`: the client sends keyOf(op) as the API's idempotency key. */
export async function main({ profile, keyed = false, work }) {
  const [verb, arg] = process.argv.slice(2);
  if (!verb || verb === '--help') {
    process.stdout.write('usage: CMD submit|cancel OPERATION_ID|work|show OPERATION_ID (client-protocol.md)\n');
    process.exit(verb ? 0 : 2);
  }
  const e = env();
  if (verb !== 'show' && e.dialect !== profile) fail(2, `this client speaks JOBPROOF_DIALECT=${profile}, got ${e.dialect}`);
  const store = new Store(e.state);
  switch (verb) {
    case 'submit': {
      const req = await stdinJson();
      if (!req || typeof req.operation_id !== 'string' || typeof req.input !== 'object' || req.input === null)
        fail(2, 'submit wants {operation_id, kind, input: <the API request body>, …}');
      if (store.submit(req) === 3) fail(3, `${req.operation_id} exists with a different request; a changed request is a new operation`);
      return process.exit(0);
    }
    case 'cancel': {
      const intent = await stdinJson();
      if (!arg || !store.cancel(arg, intent)) fail(2, `unknown operation ${arg}`);
      return process.exit(0);
    }
    case 'show': {
      const rec = arg ? store.show(arg) : null;
      if (!rec) fail(2, `unknown operation ${arg}`);
      rec.idempotency_key = keyed ? keyOf(store.get(arg)) : null;
      process.stdout.write(JSON.stringify(rec) + '\n');
      return process.exit(0);
    }
    case 'work': {
      const ac = new AbortController();
      process.on('SIGTERM', () => ac.abort());
      await work(store, e, ac.signal);
      return process.exit(0);
    }
    default:
      fail(2, `unknown subcommand ${verb}`);
  }
}

/** Every open operation of the store (the naive clients take them all, with no lease). */
export function openOps(store, isFinal) {
  return store.db
    .prepare('SELECT id, state FROM ops')
    .all()
    .filter((r) => !isFinal(r.state));
}

/**
 * The naive clients' whole worker: every open operation handed to `runOne` at once, none twice, until nothing is
 * open (the library's own defaults do the rest: no leases, no lookup, no second thoughts).
 */
export async function runEachOpen(store, signal, isFinal, runOne) {
  const running = new Map();
  while (!signal.aborted) {
    const open = openOps(store, isFinal);
    if (open.length === 0 && running.size === 0) return;
    for (const { id } of open) {
      if (running.has(id)) continue;
      const p = runOne(store.get(id))
        .catch((err) => process.stderr.write(`client: ${id}: ${err?.message ?? err}\n`))
        .finally(() => running.delete(id));
      running.set(id, p);
    }
    await sleep(100, signal);
  }
}
