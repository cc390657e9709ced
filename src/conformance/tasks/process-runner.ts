import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProvider, serve, type Provider, type RunningServer } from '../../fake-provider/index.js';
import { seededIds } from '../../lib/ids.js';
import { within } from '../../lib/within.js';
import { isFinalTaskOpState, TaskRecordSchema, type TaskRecord } from '../../contract/task-client-protocol.js';
import { callClient, spawnClient } from '../runner/process/spawn-client.js';
import { TaskHarness } from './harness.js';
import { judgeTaskRun, TASK_CLIENT, type TaskScenarioRun } from './judge-run.js';
import { TaskScenarioSchema, type TaskScenario, type TaskScenarioInput } from '../../scenarios/index.js';

export interface TaskProcessOptions {
  /** Stretch (or shrink) every scenario time: steps, fault delays, drafting, the time limit. Default 1. */
  timeScale?: number;
  /** How many times a `task work` that exits non-zero (crashed) is started again. Default 3. */
  restarts?: number;
}

/** The scenario with every time multiplied by `f` (drafting included, so a review never comes before the draft). */
export function scaleTaskScenario(sc: TaskScenario, f: number): TaskScenario {
  if (f === 1) return sc;
  const t = (ms: number) => Math.max(1, Math.round(ms * f));
  return {
    ...sc,
    task_behavior: { ...sc.task_behavior, draft_ms: t(sc.task_behavior?.draft_ms ?? 500) } as TaskScenario['task_behavior'],
    faults: sc.faults.map((r) => (r.fault.type === 'delay' ? { ...r, fault: { ...r.fault, ms: t(r.fault.ms) } } : r)),
    steps: sc.steps.map((s) => ({ ...s, at_ms: t(s.at_ms) })),
    limit_ms: t(sc.limit_ms),
  };
}

/** `task submit` and `task show` are short, but an interpreter can take many seconds to start on a loaded machine. */
const VERB_TIMEOUT_MS = 60_000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const lastLines = (s: string, n = 3) => s.trim().split('\n').slice(-n).join(' | ');
/** The first line (where a CLI says what went wrong) and the last ones (where a stack trace ends). */
const gist = (s: string) => {
  const lines = s.trim().split('\n').filter(Boolean);
  return lines.length <= 4 ? lines.join(' | ') : `${lines[0]} | … | ${lines.slice(-2).join(' | ')}`;
};

/**
 * The steps handed to `run` in the order they come due, each at its moment (a stable sort: two steps at one moment keep
 * their order; `run` handles its own errors). One timer at a time: a timer per step let two steps of one moment fire in either order on a busy
 * machine (armed a millisecond apart, they share an expiry), and a revoke could then come before its approval.
 */
export async function playSteps<A>(
  steps: readonly { at_ms: number; action: A }[],
  t0: number,
  run: (a: A) => Promise<void>,
): Promise<void> {
  const started: Promise<void>[] = [];
  for (const s of [...steps].sort((a, b) => a.at_ms - b.at_ms)) {
    // A loop, not one sleep: Node's timers run on a monotonic clock and may fire a millisecond before Date.now()
    // reaches the due time (seen under load in CI: a step 30 ms out ran at 29 ms).
    for (let wait = t0 + s.at_ms - Date.now(); wait > 0; wait = t0 + s.at_ms - Date.now()) await sleep(wait);
    started.push(run(s.action));
  }
  await Promise.all(started);
}

/**
 * Run one task scenario against a client command (client-protocol.md, task verbs) as real processes over loopback:
 * `task submit` each operation, `task show` it (its create key), one `task work`, the harness steps on the real
 * clock from the moment every task exists at the provider, then `task show` again and the judge.
 */
export async function runTaskScenarioProcess(
  input: TaskScenario | TaskScenarioInput,
  command: string,
  opts: TaskProcessOptions = {},
): Promise<TaskScenarioRun> {
  const sc = scaleTaskScenario(TaskScenarioSchema.parse(input), opts.timeScale ?? 1);
  const started = Date.now();
  const provider: Provider = createProvider({ ids: seededIds(sc.seed) });
  let server: RunningServer | undefined;
  const state = mkdtempSync(join(tmpdir(), 'jobproof-task-client-'));
  const problems: string[] = [];
  const diagnostics: string[] = [];
  let worker: ChildProcess | undefined;
  try {
    server = await serve(provider, { port: 0, host: '127.0.0.1' });
    const env = (workerId: string): NodeJS.ProcessEnv => ({
      ...process.env,
      JOBPROOF_PROVIDER_URL: server!.url,
      JOBPROOF_TOKEN: TASK_CLIENT.token,
      JOBPROOF_STATE: state,
      JOBPROOF_WORKER_ID: workerId,
      JOBPROOF_LEASE_MS: '10000',
    });
    const createKeys = new Map<string, string>();
    const taskOf = (opId: string): string | undefined => {
      const key = createKeys.get(opId);
      const e = key
        ? provider.journal.all().find((x) => x.type === 'request' && x.route === 'task_create' && x.idempotency_key === key && x.task_id)
        : undefined;
      return e?.type === 'request' ? (e.task_id ?? undefined) : undefined;
    };
    let exited: Promise<number> = Promise.resolve(0);
    let running = false;
    let restarts = 0;
    let generation = 0;
    let restarting = false;
    const harness = new TaskHarness(
      provider,
      () => Date.now(),
      taskOf,
      async () => {
        // SIGKILL, as a crash: the new worker must carry on from the record alone. A worker that already finished
        // has nothing left to lose.
        if (!running) return;
        restarting = true;
        worker?.kill('SIGKILL');
        await exited;
        startWorker();
        restarting = false;
      },
    );
    await harness.setUp(sc);

    const show = async (opId: string): Promise<TaskRecord | null> => {
      const r = await callClient(command, ['task', 'show', opId], env('harness'), null, VERB_TIMEOUT_MS);
      if (r.exit !== 0) {
        problems.push(`task show ${opId} exited ${r.exit}: ${gist(r.stderr)}`);
        return null;
      }
      let raw: unknown;
      try {
        raw = JSON.parse(r.stdout);
      } catch {
        problems.push(`task show ${opId}: stdout is not JSON: ${r.stdout.slice(0, 200)}`);
        return null;
      }
      const parsed = TaskRecordSchema.safeParse(raw);
      if (!parsed.success) {
        problems.push(
          `task show ${opId}: not a task record (client-protocol.md): ${parsed.error.issues
            .slice(0, 5)
            .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
            .join('; ')}`,
        );
        return null;
      }
      return parsed.data;
    };

    for (const op of sc.ops) {
      const req = {
        task_op_id: op.task_op_id,
        object_ref: op.object_ref,
        object_version: harness.versions.get(op.object_ref) ?? 1,
        input: op.input,
        deadline_ms: sc.limit_ms,
      };
      const r = await callClient(command, ['task', 'submit'], env('harness'), JSON.stringify(req), VERB_TIMEOUT_MS);
      if (r.exit !== 0) problems.push(`task submit ${op.task_op_id} exited ${r.exit}: ${gist(r.stderr)}`);
      const rec = await show(op.task_op_id);
      if (rec) createKeys.set(op.task_op_id, rec.create_key);
    }
    if (problems.length > 0)
      return await judgeTaskRun(sc, provider, harness, [], { finished: false, elapsed_ms: Date.now() - started, problems, diagnostics });

    const startWorker = () => {
      generation++;
      const child = spawnClient(command, ['task', 'work'], env(`task-worker-${generation}`));
      worker = child;
      running = true;
      let err = '';
      child.stdout!.resume();
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
      exited = new Promise((resolve) =>
        child.on('close', (code, signal) => {
          running = false;
          if (code !== 0 && !restarting) diagnostics.push(`task work exited ${code ?? signal}: ${lastLines(err, 5)}`);
          resolve(code ?? 128);
        }),
      );
    };
    startWorker();

    // The scenario clock starts when every operation's task exists at the provider: a slow-starting client does not
    // see its reviews come early. Bounded by the scenario's limit like everything else.
    const limit = started + sc.limit_ms + 30_000;
    while (sc.ops.some((op) => !taskOf(op.task_op_id)) && Date.now() < limit && running) await sleep(20);
    const t0 = Date.now();
    const steps = playSteps(sc.steps, t0, (a) => harness.step(a).catch((err) => void harness.problems.push(`step failed: ${String(err)}`)));

    const deadline = t0 + sc.limit_ms;
    for (;;) {
      const g = generation;
      const code = await within(exited, Math.max(0, deadline - Date.now()), null);
      if (code === null) break;
      if (restarting || g !== generation) {
        // The harness killed this worker on purpose and is starting the next one.
        while (restarting && Date.now() < deadline) await sleep(10);
        continue;
      }
      if (code === 0) break;
      if (restarts >= (opts.restarts ?? 3) || Date.now() >= deadline) break;
      restarts++;
      startWorker();
    }
    const finishedInTime = !running;
    if (running) {
      worker?.kill('SIGTERM');
      const gone = await within(
        exited.then(() => true),
        3_000,
        false,
      );
      if (!gone) worker?.kill('SIGKILL');
      await exited;
    }
    await steps;
    const records = (await Promise.all(sc.ops.map((op) => show(op.task_op_id)))).filter((r): r is TaskRecord => r !== null);
    const open = records.filter((r) => !isFinalTaskOpState(r.state));
    const finished = finishedInTime && open.length === 0 && records.length === sc.ops.length;
    if (finishedInTime && open.length > 0)
      problems.push(`task work exited while ${open.map((r) => `${r.task_op_id} was ${r.state}`).join(', ')}`);
    return await judgeTaskRun(sc, provider, harness, records, { finished, elapsed_ms: Date.now() - started, problems, diagnostics });
  } finally {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    await server?.close();
    await provider.idle();
    provider.close();
    rmSync(state, { recursive: true, force: true });
  }
}
