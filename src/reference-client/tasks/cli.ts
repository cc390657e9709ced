import type { Command } from 'commander';
import { EXIT, UnknownOperationError } from '../../contract/client-states.js';
import { realClock } from '../../lib/clock.js';
import { clientDb, env, isUsageError, Refusal } from '../cli-env.js';
import type { TaskClient } from './index.js';

// The task client (its stores, worker and policy) is loaded only when a task verb runs: every `jobproof client …`
// start registers these verbs, and the job verbs, started hundreds of times per certification, never use them.
const taskClientModule = () => import('./index.js');

/**
 * `client task submit|work|show`: the task verbs of client-protocol.md for the reference task client. Same
 * environment as the job verbs (JOBPROOF_PROVIDER_URL, JOBPROOF_TOKEN, JOBPROOF_STATE, JOBPROOF_WORKER_ID,
 * JOBPROOF_LEASE_MS, JOBPROOF_CLIENT_DB or `client --db`).
 */
/** JOBPROOF_LEASE_MS, as for the job verbs (default 10000). */
function leaseMs(): number {
  const ms = Number(env('JOBPROOF_LEASE_MS') ?? 10_000);
  if (!Number.isInteger(ms) || ms <= 0) throw new Refusal('JOBPROOF_LEASE_MS must be a positive integer');
  return ms;
}

async function open(): Promise<TaskClient> {
  const state = env('JOBPROOF_STATE', true)!;
  const db = clientDb();
  const { createTaskClient } = await taskClientModule();
  return createTaskClient({
    state,
    db,
    clock: realClock,
    fetch: (...a) => globalThis.fetch(...a),
    providerUrl: env('JOBPROOF_PROVIDER_URL') ?? 'http://127.0.0.1:4010',
    token: env('JOBPROOF_TOKEN') ?? '',
    workerId: env('JOBPROOF_WORKER_ID') ?? `task-worker-${process.pid}`,
    leaseMs: leaseMs(),
  });
}

async function stdinJson(): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new UnknownOperationError('stdin is not valid JSON');
  }
}

function act<A extends unknown[]>(fn: (c: TaskClient, ...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    let c: TaskClient | undefined;
    try {
      c = await open();
      await fn(c, ...args);
      process.exitCode ??= EXIT.ok;
    } catch (err) {
      const e = err as Error & { issues?: { path: unknown[]; message: string }[] };
      const detail = e.issues ? e.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ') : e.message;
      const { ChangedTaskRequestError } = await taskClientModule();
      const known = err instanceof ChangedTaskRequestError || err instanceof UnknownOperationError || isUsageError(err) || e.issues;
      process.stderr.write(`jobproof client task: ${known ? detail : `unexpected error: ${e.stack ?? e}`}\n`);
      process.exitCode = err instanceof ChangedTaskRequestError ? EXIT.changedRequest : known ? EXIT.refused : 1;
    } finally {
      await c?.close();
    }
  };
}

/** The task verbs' actions (commander registers them; the bundled client may call them directly, see cli.ts). */
export const TASK_VERBS = {
  submit: act(async (c) => {
    // The schema (zod) is built by the verb that parses with it, not by every start that registers the verbs.
    const { TaskSubmitSchema } = await import('../../contract/task-client-protocol.js');
    await c.submitTask(TaskSubmitSchema.parse(await stdinJson()));
  }),
  show: act(async (c, id: string) => void process.stdout.write(`${JSON.stringify(await c.show(id))}\n`)),
  work: act(async (c) => {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    // RealClock timers are unref'd: this handle keeps the process alive exactly as long as `work` runs.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    try {
      await c.work({ signal: stop.signal });
    } finally {
      clearInterval(keepAlive);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    setImmediate(() => process.exit(process.exitCode ?? 0)).unref();
  }),
};

export function registerTaskCommands(client: Command): void {
  const task = client.command('task').description('the task verbs (tasks-api.md): submit, work, show');
  task
    .command('submit')
    .description('record a task operation from stdin {"task_op_id","object_ref","object_version","input","deadline_ms"}; no network')
    .action(TASK_VERBS.submit);
  task
    .command('show')
    .argument('<task_op_id>', 'the task operation to print')
    .description('print the task record (with its create and apply keys and history) as JSON')
    .action(TASK_VERBS.show);
  task
    .command('work')
    .description('drive every task operation to a final state (create, wait for a current approval, apply once); SIGTERM stops it')
    .action(TASK_VERBS.work);
}
