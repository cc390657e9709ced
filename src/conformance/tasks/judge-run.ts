import type { RequestEntry } from '../../contract/journal.js';
import type { Provider } from '../../fake-provider/index.js';
import type { TaskRecord } from '../../contract/task-client-protocol.js';
import { checkTasks, type TaskVerdict } from './check.js';
import type { TaskEvidence } from './evidence.js';
import type { TaskHarness } from './harness.js';
import type { TaskScenario } from '../../scenarios/index.js';

export interface TaskScenarioRun {
  scenario: string;
  verdict: TaskVerdict;
  evidence: TaskEvidence;
  /** The client's final records of the scenario's operations (`task show`). */
  reports: TaskRecord[];
  /** Harness steps whose answer was not the one the scenario expected, scenario expectations not met, protocol faults. */
  problems: string[];
  /** Why the run did not exercise the scenario's point (a race the client won legitimately); empty when it did. */
  not_exercised: string[];
  finished: boolean;
  elapsed_ms: number;
  /** What the client said on stderr (process runs), for a person reading a failure. */
  diagnostics: string[];
}

/** The client's principal in every task scenario (`dev-token`). */
export const TASK_CLIENT = { token: 'dev-token', tenant: 'acme', subject: 'agent-1' } as const;

/** Collect the evidence of a finished run, judge it (T1–T5) and hold it to the scenario's expectations. */
export async function judgeTaskRun(
  sc: TaskScenario,
  provider: Provider,
  harness: TaskHarness,
  records: TaskRecord[],
  run: { finished: boolean; elapsed_ms: number; problems?: string[]; diagnostics?: string[] },
): Promise<TaskScenarioRun> {
  // The judge reads the provider through its public views only: the journal, then the control view of the tasks and
  // each object as its tenant reads it (that read is journalled after the journal was taken).
  const journal = provider.journal.all().filter((e): e is RequestEntry => e.type === 'request');
  const tasks = await harness.tasks();
  const objects: TaskEvidence['provider']['objects'] = [];
  for (const o of sc.objects) objects.push({ tenant: o.tenant, object_ref: o.ref, version: await harness.objectVersion(o.tenant, o.ref) });
  const evidence: TaskEvidence = {
    journal,
    client: { tenant: TASK_CLIENT.tenant, subject: TASK_CLIENT.subject, ops: records },
    provider: { tasks, objects },
    harness: harness.events,
  };
  const verdict = checkTasks(evidence);
  const problems = [...(run.problems ?? []), ...harness.problems];
  if (!run.finished) problems.push(`not every operation was final within ${sc.limit_ms} ms`);
  for (const r of records) {
    if (sc.expect.final_state && r.state !== sc.expect.final_state)
      problems.push(`op ${r.task_op_id} ended ${r.state} (${r.reason ?? ''}), expected ${sc.expect.final_state}`);
    if (sc.expect.applied_proposal_version !== undefined && harness.notExercised.length === 0) {
      const t = tasks.find((x) => x.task_id === r.task_id);
      if (t?.state === 'applied' && t.result?.proposal.proposal_version !== sc.expect.applied_proposal_version) {
        problems.push(
          `op ${r.task_op_id} applied proposal ${t.result?.proposal.proposal_version}, expected ${sc.expect.applied_proposal_version}`,
        );
      }
    }
  }
  return {
    scenario: sc.name,
    verdict,
    evidence,
    reports: records,
    problems,
    not_exercised: [...harness.notExercised],
    finished: run.finished,
    elapsed_ms: run.elapsed_ms,
    diagnostics: run.diagnostics ?? [],
  };
}
