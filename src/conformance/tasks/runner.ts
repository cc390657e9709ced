import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settle, VirtualClock } from '../../lib/clock.js';
import { seededIds } from '../../lib/ids.js';
import {
  TaskRecordSchema,
  type InProcessTaskClient,
  type InProcessTaskClientFactory,
  type InProcessTaskClientOptions,
} from '../../contract/task-client-protocol.js';
import { createProvider, IN_PROCESS_BASE } from '../../fake-provider/index.js';
import { TaskHarness } from './harness.js';
import { judgeTaskRun, TASK_CLIENT, type TaskScenarioRun } from './judge-run.js';
import { TaskScenarioSchema, type TaskScenario, type TaskScenarioInput } from '../../scenarios/index.js';

export type TaskClientEnv = InProcessTaskClientOptions;
export type TaskClientFactory = InProcessTaskClientFactory;
export type { TaskScenarioRun } from './judge-run.js';

/**
 * Run one task scenario in process: a fake provider and the client on one VirtualClock, the harness steps as timers
 * on that clock, then the judge over the journal, the provider's final tasks and objects, and the client's records.
 */
export async function runTaskScenario(input: TaskScenario | TaskScenarioInput, clientFactory: TaskClientFactory): Promise<TaskScenarioRun> {
  const sc = TaskScenarioSchema.parse(input);
  const clock = new VirtualClock();
  const start = clock.now();
  const provider = createProvider({ clock, ids: seededIds(sc.seed) });
  const state = mkdtempSync(join(tmpdir(), 'jobproof-tasks-'));
  let client: InProcessTaskClient | null = null;
  const newClient = () => clientFactory({ fetch: provider.fetch, clock, providerUrl: IN_PROCESS_BASE, token: TASK_CLIENT.token, state });
  // The running `work`: restarting the worker abandons it (abort, close) and starts another client on the same state.
  let worker = { abort: new AbortController(), done: false, promise: Promise.resolve() };
  let restarting = false;
  const startWork = (c: InProcessTaskClient) => {
    const w = { abort: new AbortController(), done: false, promise: Promise.resolve() };
    w.promise = c.work({ signal: w.abort.signal }).finally(() => {
      w.done = true;
    });
    w.promise.catch(() => undefined);
    worker = w;
  };
  try {
    const opTask = new Map<string, string>();
    const harness = new TaskHarness(
      provider,
      () => clock.now(),
      async (opId) => {
        const known = opTask.get(opId) ?? (await client?.show(opId))?.task_id ?? undefined;
        if (known) opTask.set(opId, known);
        return known;
      },
      async () => {
        restarting = true;
        worker.abort.abort(new Error('worker killed by the harness'));
        await worker.promise.catch(() => undefined);
        await client?.close();
        client = newClient();
        startWork(client);
        restarting = false;
      },
    );
    await harness.setUp(sc);
    client = newClient();
    const c = client;
    for (const op of sc.ops)
      await c.submitTask({
        task_op_id: op.task_op_id,
        object_ref: op.object_ref,
        object_version: harness.versions.get(op.object_ref) ?? 1,
        input: op.input,
        deadline_ms: sc.limit_ms,
      });

    const pendingSteps: Promise<void>[] = [];
    for (const s of sc.steps) {
      clock.setTimeout(() => {
        pendingSteps.push(harness.step(s.action).catch((err) => void harness.problems.push(`step failed: ${String(err)}`)));
      }, s.at_ms);
    }
    startWork(c);
    const limit = start + sc.limit_ms;
    while ((restarting || !worker.done) && clock.now() <= limit) {
      const moved = await clock.step();
      if (!moved) {
        await settle(10);
        if (!worker.done && !restarting) break;
      }
    }
    const finished = worker.done;
    if (!worker.done) worker.abort.abort(new Error('scenario time limit'));
    await worker.promise;
    await Promise.all(pendingSteps);
    const last = client;
    // The judge reads every client's records through the protocol's schema, an in-process one's too.
    const records = await Promise.all(sc.ops.map(async (op) => TaskRecordSchema.parse(await last.show(op.task_op_id))));
    return await judgeTaskRun(sc, provider, harness, records, { finished, elapsed_ms: clock.now() - start });
  } finally {
    await client?.close();
    provider.close();
    rmSync(state, { recursive: true, force: true });
  }
}
