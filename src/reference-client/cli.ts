import type { Command } from 'commander';
import type { Server } from 'node:http';
import { ChangedRequestError, EXIT, UnknownOperationError } from '../contract/client-states.js';
import { realClock } from '../lib/clock.js';
import type { ReferenceClient, ReferenceClientOptions } from './client.js';
import { isPostgresUrl } from './store/pg-pool.js';
import { registerTaskCommands, TASK_VERBS } from './tasks/cli.js';
import { DIALECTS, type Dialect } from './wire/adapter.js';
import type { WireChoice } from './wire/index.js';

// What a verb needs is loaded when it runs: `jobproof client …` is started hundreds of times per certification, and
// the audit check, the webhook listener and the task client are each needed by one verb or one configuration only;
// `show` reads the store alone, and zod is loaded only by the verbs that parse with it (not at start-up).

/**
 * The process face of client-protocol.md: `client submit|cancel|work|show|audit verify`. Configuration comes from
 * the JOBPROOF_* environment only; the token is read from the environment and never printed or logged.
 */
class Refusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.refused,
  ) {
    super(message);
  }
}

function env(name: string, required = false): string | undefined {
  const v = process.env[name];
  if (required && (v === undefined || v === '')) throw new Refusal(`${name} must be set`);
  return v === '' ? undefined : v;
}

/**
 * client-protocol.md: JOBPROOF_DIALECT picks the wire API — a dialect (docs/spec/dialects.md), or a profile by its
 * built-in name or its file (profiles.md), read and checked here so that a broken profile is refused before any
 * request. The durable machinery is the same.
 */
async function readApi(): Promise<WireChoice> {
  const value = env('JOBPROOF_DIALECT') ?? 'native';
  if ((DIALECTS as readonly string[]).includes(value)) return { dialect: value as Dialect };
  const { builtinProfileNames, describeLoad, loadProfile } = await import('../contract/profile-files.js');
  const names = builtinProfileNames();
  if (!names.includes(value) && !/[/\\]|\.(json|ya?ml)$/i.test(value))
    throw new Refusal(
      `JOBPROOF_DIALECT must be one of ${DIALECTS.join(', ')}; got ${value} — or a built-in profile (${names.join(', ')}), or a profile file`,
    );
  const l = loadProfile(value);
  if (!l.ok) throw new Refusal(`JOBPROOF_DIALECT names a profile that does not check:\n${describeLoad(l)}`);
  return { profile: l.profile };
}

/** The client's options from the environment (client-protocol.md), refused with exit 2 when they make no sense. */
async function readOptions(): Promise<ReferenceClientOptions> {
  const api = await readApi();
  const db = env('JOBPROOF_CLIENT_DB');
  if (db && !isPostgresUrl(db))
    throw new Refusal('JOBPROOF_CLIENT_DB (--db) must be a postgres:// or postgresql:// URL; leave it unset for SQLite in JOBPROOF_STATE');
  const leaseMs = Number(env('JOBPROOF_LEASE_MS') ?? 10_000);
  if (!Number.isInteger(leaseMs) || leaseMs <= 0) throw new Refusal('JOBPROOF_LEASE_MS must be a positive integer');
  const port = env('JOBPROOF_WEBHOOK_PORT');
  const secret = env('JOBPROOF_WEBHOOK_SECRET');
  return {
    fetch: (...a) => globalThis.fetch(...a),
    clock: realClock,
    providerUrl: env('JOBPROOF_PROVIDER_URL') ?? 'http://127.0.0.1:4010',
    token: env('JOBPROOF_TOKEN') ?? '',
    workerId: env('JOBPROOF_WORKER_ID') ?? `worker-${process.pid}`,
    leaseMs,
    api,
    state: env('JOBPROOF_STATE', true)!,
    webhook: port && secret ? { url: `http://127.0.0.1:${port}/`, secret } : undefined,
  };
}

async function openClient(): Promise<ReferenceClient> {
  const opts = await readOptions();
  const { ReferenceClient } = await import('./client.js');
  return new ReferenceClient(opts);
}

/** `show` as ReferenceClient.show answers it, from the store the client would open, without loading the client. */
async function showFromStore(operationId: string): Promise<void> {
  const opts = await readOptions();
  const [{ openOperationStore }, { showOperation }, { BUILT_IN_TRAITS, profileTraits }] = await Promise.all([
    import('./store/open-store.js'),
    import('./show.js'),
    import('./wire/traits.js'),
  ]);
  const api = opts.api ?? { dialect: 'native' };
  const traits = 'profile' in api ? profileTraits(api.profile) : BUILT_IN_TRAITS[api.dialect];
  const store = openOperationStore(opts.state, process.env.JOBPROOF_CLIENT_DB, { leaseMs: opts.leaseMs });
  try {
    process.stdout.write(`${JSON.stringify(await showOperation(store, operationId, traits))}\n`);
  } finally {
    await store.close();
  }
}

async function readStdinJson(): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new Refusal('stdin is not valid JSON');
  }
}

/** Run an action and turn every refusal into the protocol's exit code and a message on stderr. */
// biome-ignore lint/suspicious/noConfusingVoidType: an action either returns an exit code or nothing at all
function act<A extends unknown[]>(fn: (...args: A) => Promise<number | void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      const code = await fn(...args);
      process.exitCode = code ?? EXIT.ok;
    } catch (err) {
      const e = err as Error & { issues?: { path: unknown[]; message: string }[] };
      const code = err instanceof Refusal ? err.exitCode : err instanceof ChangedRequestError ? EXIT.changedRequest : EXIT.refused;
      const detail = e.issues ? (await import('./schema-refusal.js')).schemaRefusal(e) : e.message;
      if (!(err instanceof Refusal || err instanceof ChangedRequestError || err instanceof UnknownOperationError || e.issues)) {
        process.stderr.write(`jobproof client: unexpected error: ${e.stack ?? e}\n`);
        process.exitCode = 1;
        return;
      }
      process.stderr.write(`jobproof client: ${detail}\n`);
      process.exitCode = code;
    }
  };
}

async function withClient<T>(fn: (c: ReferenceClient) => Promise<T>): Promise<T> {
  const c = await openClient();
  try {
    return await fn(c);
  } finally {
    await c.close();
  }
}

const submit = act(async () => withClient(async (c) => void (await c.submit((await readStdinJson()) as never))));
const cancel = act(async (id: string) => withClient(async (c) => void (await c.cancel(id, (await readStdinJson()) as never))));
const show = act(showFromStore);
const work = act(async () => {
  const c = await openClient();
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  let server: Server | null = null;
  // RealClock timers are unref'd (they must not pin a process), so the worker's own sleeps would let Node
  // exit mid-run; this handle keeps the process alive exactly as long as `work` runs.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    const port = env('JOBPROOF_WEBHOOK_PORT');
    if (port && env('JOBPROOF_WEBHOOK_SECRET'))
      server = await (await import('./webhook-receiver.js')).listenWebhooks((r) => c.handleWebhook(r), Number(port));
    await c.work({ signal: stop.signal });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    clearInterval(keepAlive);
    server?.close();
    await c.close();
  }
  // Pooled keep-alive sockets must not hold a finished worker open.
  setImmediate(() => process.exit(process.exitCode ?? 0)).unref();
});
const auditVerify = act(async () => {
  const verdict = await (await import('./index.js')).verifyAudit(env('JOBPROOF_STATE', true)!);
  process.stdout.write(`${JSON.stringify(verdict)}\n`);
  return verdict.ok ? EXIT.ok : EXIT.refused;
});

/** The verbs by their words, with how many arguments each takes. */
const VERBS: Record<string, { args: number; run: (...args: string[]) => Promise<void> }> = {
  submit: { args: 0, run: submit },
  cancel: { args: 1, run: cancel },
  show: { args: 1, run: show },
  work: { args: 0, run: work },
  'audit verify': { args: 0, run: auditVerify },
  'task submit': { args: 0, run: TASK_VERBS.submit },
  'task show': { args: 1, run: TASK_VERBS.show },
  'task work': { args: 0, run: TASK_VERBS.work },
};

/**
 * The action for a plain call after `client` — a verb and exactly its arguments, no option (`show op_1`,
 * `task work`) — run as commander would run it; undefined for anything else (options, help, a typo, a missing
 * argument), which is commander's to parse. Lets the bundled client skip loading commander on the calls certify makes.
 */
export function plainCall(args: readonly string[]): (() => Promise<void>) | undefined {
  if (args.some((a) => a.startsWith('-'))) return undefined;
  for (const words of [1, 2]) {
    const verb = VERBS[args.slice(0, words).join(' ')];
    if (verb && args.length === words + verb.args) return () => verb.run(...args.slice(words));
  }
  return undefined;
}

export function registerClientCommands(program: Command): Command {
  const client = program
    .command('client')
    .description('the jobproof reference client (client-protocol.md); configured by JOBPROOF_* environment variables')
    .option('--db <url>', 'store operations in PostgreSQL (postgres://…) instead of SQLite in JOBPROOF_STATE; same as JOBPROOF_CLIENT_DB')
    .option(
      '--profile <name|file>',
      'speak the API a profile describes (a built-in name such as google-lro, or a profile file); same as JOBPROOF_DIALECT=<file>',
    )
    .hook('preSubcommand', async (cmd) => {
      const { db, profile } = cmd.opts<{ db?: string; profile?: string }>();
      if (db) process.env.JOBPROOF_CLIENT_DB = db;
      // A built-in profile by its file, so that `--profile native` is the native profile, not the native dialect.
      if (profile) process.env.JOBPROOF_DIALECT = (await import('../contract/profile-files.js')).profilePath(profile);
    })
    .addHelpText(
      'after',
      `
Environment:
  JOBPROOF_PROVIDER_URL    provider base URL (default http://127.0.0.1:4010)
  JOBPROOF_TOKEN           bearer token for the provider
  JOBPROOF_STATE           directory holding this client's durable state (required); with PostgreSQL, names
                           the schema the state lives in (one schema per state directory)
  JOBPROOF_CLIENT_DB       postgres://user@host:port/db to keep operations and tasks in PostgreSQL (a fleet
                           of workers on many machines); unset: SQLite files in JOBPROOF_STATE
  JOBPROOF_DIALECT         the wire API: native (default), openai (Batch), anthropic (Message Batches), or a
                           profile: a built-in profile's name or a profile file (profiles.md; --profile)
  JOBPROOF_WORKER_ID       this worker's identity, sent as X-Worker-ID
  JOBPROOF_LEASE_MS        lease length per operation (default 10000)
  JOBPROOF_WEBHOOK_PORT    listen for webhooks on 127.0.0.1:PORT (work only)
  JOBPROOF_WEBHOOK_SECRET  Standard Webhooks secret (whsec_...)

Exit codes: 0 done, 2 refused (bad input, unknown operation), 3 changed request for an existing operation id.`,
    );

  client
    .command('submit')
    .description('record a new operation from stdin {"operation_id","kind","input","create_deadline_ms","result_deadline_ms"}; no network')
    .action(submit);

  client
    .command('cancel')
    .argument('<operation_id>', 'the operation to cancel')
    .description('record the intent to cancel, from stdin {"actor","reason","cancel_deadline_ms"}; no network')
    .action(cancel);

  client
    .command('show')
    .argument('<operation_id>', 'the operation to print')
    .description('print the operation record as JSON')
    .action(show);

  client
    .command('work')
    .description('run a worker until every operation is final; SIGTERM stops it cleanly (leases handed back)')
    .action(work);

  client
    .command('audit')
    .description('audit log commands')
    .command('verify')
    .description('verify the hash chain of the audit log in JOBPROOF_STATE; exit 0 if intact, 2 if it was edited')
    .action(auditVerify);
  registerTaskCommands(client);
  return client;
}
