import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settle, VirtualClock } from '../../lib/clock.js';
import { seededIds } from '../../lib/ids.js';
import { TaskRecordSchema, type InProcessTaskClient, type InProcessTaskClientFactory, type InProcessTaskClientOptions } from '../../contract/task-client-protocol.js';
import { createProvider, IN_PROCESS_BASE } from '../../fake-provider/index.js';
import { TaskHarness } from './harness.js';
import { judgeTaskRun, TASK_CLIENT, type TaskScenarioRun } from './judge-run.js';
import { TaskScenarioSchema, type TaskScenario, type TaskScenarioInput } from './scenarios.js';

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
  try {
    const opTask = new Map<string, string>();
    const harness = new TaskHarness(provider, () => clock.now(), (opId) => {
      const known = opTask.get(opId) ?? client?.show(opId).task_id ?? undefined;
      if (known) opTask.set(opId, known);
      return known;
    });
    await harness.setUp(sc);
    client = clientFactory({ fetch: provider.fetch, clock, providerUrl: IN_PROCESS_BASE, token: TASK_CLIENT.token, state });
    const c = client;
    for (const op of sc.ops) c.submitTask({ task_op_id: op.task_op_id, object_ref: op.object_ref, object_version: harness.versions.get(op.object_ref) ?? 1, input: op.input, deadline_ms: sc.limit_ms });

    const pendingSteps: Promise<void>[] = [];
    for (const s of sc.steps) {
      clock.setTimeout(() => {
        pendingSteps.push(harness.step(s.action).catch((err) => void harness.problems.push(`step failed: ${String(err)}`)));
      }, s.at_ms);
    }
    const abort = new AbortController();
    let done = false;
    const working = c.work({ signal: abort.signal }).finally(() => {
      done = true;
    });
    working.catch(() => undefined);
    const limit = start + sc.limit_ms;
    while (!done && clock.now() <= limit) {
      const moved = await clock.step();
      if (!moved) {
        await settle(10);
        if (!done) break;
      }
    }
    const finished = done;
    if (!done) abort.abort(new Error('scenario time limit'));
    await working;
    await Promise.all(pendingSteps);
    // The judge reads every client's records through the protocol's schema, an in-process one's too.
    const records = sc.ops.map((op) => TaskRecordSchema.parse(c.show(op.task_op_id)));
    return await judgeTaskRun(sc, provider, harness, records, { finished, elapsed_ms: clock.now() - start });
  } finally {
    client?.close();
    provider.close();
    rmSync(state, { recursive: true, force: true });
  }
}
