// client-protocol.md for the example clients: `CMD submit|cancel|work|show`, the environment, the exit codes.
import { Store } from './store.mjs';

export function env() {
  const e = process.env;
  for (const k of ['JOBPROOF_PROVIDER_URL', 'JOBPROOF_TOKEN', 'JOBPROOF_STATE']) if (!e[k]) fail(2, `${k} is not set`);
  return {
    root: e.JOBPROOF_PROVIDER_URL.replace(/\/$/, ''),
    token: e.JOBPROOF_TOKEN,
    state: e.JOBPROOF_STATE,
    worker: e.JOBPROOF_WORKER_ID ?? 'worker-1',
    leaseMs: Number(e.JOBPROOF_LEASE_MS ?? 1000),
    dialect: e.JOBPROOF_DIALECT ?? 'native',
  };
}

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

/** Run one invocation; `work(store, env, signal)` is the client's own worker loop. */
export async function main({ dialect, work }) {
  const [verb, arg] = process.argv.slice(2);
  if (!verb || verb === '--help') {
    process.stdout.write('usage: CMD submit|cancel OPERATION_ID|work|show OPERATION_ID (client-protocol.md)\n');
    process.exit(verb ? 0 : 2);
  }
  const e = env();
  if (verb !== 'show' && e.dialect !== dialect) fail(2, `this client speaks JOBPROOF_DIALECT=${dialect}, got ${e.dialect}`);
  const store = new Store(e.state);
  switch (verb) {
    case 'submit': {
      const req = await stdinJson();
      if (!req || typeof req.operation_id !== 'string' || !Array.isArray(req.input?.requests))
        fail(2, 'submit wants {operation_id, kind, input: {requests}, …}');
      const code = store.submit(req);
      if (code === 3) fail(3, `${req.operation_id} exists with a different request; a changed request is a new operation`);
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

export const sleep = (ms, signal) =>
  new Promise((res) => {
    const t = setTimeout(res, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        res();
      },
      { once: true },
    );
  });
