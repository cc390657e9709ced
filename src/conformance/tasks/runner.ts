import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { settle, VirtualClock, type Clock } from '../../lib/clock.js';
import { seededIds } from '../../lib/ids.js';
import { createProvider, IN_PROCESS_BASE } from '../../fake-provider/index.js';
import type { RequestEntry } from '../../contract/index.js';
import { checkTasks, type TaskVerdict } from './check.js';
import { ClientTaskOpsSchema, TaskOpReportSchema, type HarnessEvent, type ProviderTask, type TaskClientUnderTest, type TaskEvidence, type TaskOpReport } from './evidence.js';
import { TaskScenarioSchema, type TaskScenario, type TaskScenarioInput, type TaskStepAction } from './scenarios.js';

export interface TaskClientEnv {
  fetch: typeof fetch;
  clock: Clock;
  providerUrl: string;
  token: string;
  state: string;
}
export type TaskClientFactory = (env: TaskClientEnv) => TaskClientUnderTest;

export interface TaskScenarioRun {
  scenario: string;
  verdict: TaskVerdict;
  evidence: TaskEvidence;
  reports: TaskOpReport[];
  /** Harness steps whose answer was not the one the scenario expected, and scenario expectations not met. */
  problems: string[];
  finished: boolean;
  elapsed_ms: number;
}

const CLIENT_TOKEN = 'dev-token';
const CONTROL = { authorization: 'Bearer control-token', 'content-type': 'application/json' };

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
  const harness: HarnessEvent[] = [];
  const problems: string[] = [];
  const opTask = new Map<string, string>();
  let client: TaskClientUnderTest | null = null;
  try {
    const control = async (method: string, path: string, body?: unknown) => {
      const res = await provider.fetch(`${IN_PROCESS_BASE}/_control${path}`, { method, headers: CONTROL, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await res.json();
      if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const note = (e: Omit<HarnessEvent, 'after_seq' | 'at'>) => harness.push({ after_seq: provider.journal.lastSeq(), at: new Date(clock.now()).toISOString(), ...e });

    await control('PUT', '/task-behavior', sc.task_behavior ?? {});
    const versions = new Map<string, number>();
    for (const o of sc.objects) {
      const put = await control('PUT', `/objects/${o.ref}`, { tenant: o.tenant, data: o.data });
      versions.set(o.ref, put.version);
      note({ kind: 'put_object', object_ref: o.ref, tenant: o.tenant });
    }
    if (sc.faults.length > 0) provider.control.setFaults({ seed: sc.seed, rules: sc.faults });

    client = clientFactory({ fetch: provider.fetch, clock, providerUrl: IN_PROCESS_BASE, token: CLIENT_TOKEN, state });
    const c = client;
    for (const op of sc.ops) await c.submitTask({ task_op_id: op.task_op_id, object_ref: op.object_ref, object_version: versions.get(op.object_ref) ?? 1, input: op.input, deadline_ms: sc.limit_ms });

    const taskOf = async (opId: string): Promise<string | undefined> => {
      const known = opTask.get(opId) ?? ClientTaskOpsSchema.parse(await c.records()).find((r) => r.row.task_op_id === opId)?.row.task_id ?? undefined;
      if (known) opTask.set(opId, known);
      return known;
    };
    const runStep = async (a: TaskStepAction) => {
      if (a.type === 'edit_object') {
        await control('PUT', `/objects/${a.ref}`, { tenant: a.tenant, data: a.data });
        note({ kind: 'put_object', object_ref: a.ref, tenant: a.tenant });
      } else if (a.type === 'set_principals') {
        await control('PUT', '/principals', { tokens: a.tokens });
        note({ kind: 'set_principals', detail: { tokens: Object.keys(a.tokens) } });
      } else {
        const id = await taskOf(a.op);
        const t = id ? provider.tasks.tasks.get(id) : undefined;
        const pv = a.proposal === 'current' ? t?.result?.proposal.proposal_version : a.proposal;
        if (!id || pv === undefined) {
          problems.push(`step ${a.decision} on ${a.op}: no task or no proposal yet`);
          return;
        }
        const res = await provider.fetch(`${IN_PROCESS_BASE}/v1/tasks/${id}/review`, {
          method: 'POST', headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ decision: a.decision, proposal_version: pv, comment: 'harness' }),
        }).catch(() => null);
        const status = res?.status ?? 0;
        await res?.text();
        note({ kind: 'review', task_id: id, decision: a.decision, status });
        const expected = a.expect_status ?? 200;
        if (expected !== 'any' && status !== expected) problems.push(`step ${a.decision} on ${a.op} with ${a.token}: ${status}, expected ${expected}`);
      }
    };
    const pendingSteps: Promise<void>[] = [];
    for (const s of sc.steps) {
      clock.setTimeout(() => {
        pendingSteps.push(runStep(s.action).catch((err) => void problems.push(`step failed: ${String(err)}`)));
      }, s.at_ms);
    }

    const abort = new AbortController();
    let done = false;
    const reportsP = Promise.all(sc.ops.map((op) => c.runTask(op.task_op_id, abort.signal))).finally(() => {
      done = true;
    });
    reportsP.catch(() => undefined);
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
    const reports = (await reportsP).map((r) => TaskOpReportSchema.parse(r));
    await Promise.all(pendingSteps);

    const tasksRes = await control('GET', '/tasks');
    const tasks = (tasksRes.data as ProviderTask[]);
    const objects = sc.objects.map((o) => {
      const row = provider.tasks.objects.get(o.tenant, o.ref);
      return { tenant: o.tenant, object_ref: o.ref, version: row?.version ?? 0 };
    });
    const evidence: TaskEvidence = {
      journal: provider.journal.all().filter((e): e is RequestEntry => e.type === 'request'),
      client: { tenant: 'acme', subject: 'agent-1', ops: ClientTaskOpsSchema.parse(await c.records()) },
      provider: { tasks, objects },
      harness,
    };
    const verdict = checkTasks(evidence);
    for (const r of reports) {
      if (sc.expect.final_state && r.state !== sc.expect.final_state) problems.push(`op ${r.task_op_id} ended ${r.state} (${r.reason ?? ''}), expected ${sc.expect.final_state}`);
      if (sc.expect.applied_proposal_version !== undefined) {
        const t = tasks.find((x) => x.task_id === r.task_id);
        if (t?.state === 'applied' && t.result?.proposal.proposal_version !== sc.expect.applied_proposal_version) {
          problems.push(`op ${r.task_op_id} applied proposal ${t.result?.proposal.proposal_version}, expected ${sc.expect.applied_proposal_version}`);
        }
      }
    }
    return { scenario: sc.name, verdict, evidence, reports, problems, finished, elapsed_ms: clock.now() - start };
  } finally {
    await client?.close();
    provider.close();
    rmSync(state, { recursive: true, force: true });
  }
}
