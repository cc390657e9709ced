import type { Provider } from '../../fake-provider/index.js';
import { IN_PROCESS_BASE } from '../../fake-provider/index.js';
import type { HarnessEvent, ProviderTask } from './evidence.js';
import type { TaskScenario, TaskStepAction } from '../../scenarios/index.js';

const CONTROL = { authorization: 'Bearer control-token', 'content-type': 'application/json' };

/**
 * What the harness does around a task client, the same for in-process and process runs: set the provider up,
 * then play the scenario's steps (reviews, object edits, role changes), noting each in the journal's order.
 */
export class TaskHarness {
  readonly events: HarnessEvent[] = [];
  readonly problems: string[] = [];
  /** Why the run did not exercise what the scenario is about (a legitimate race the client won), if it did not. */
  readonly notExercised: string[] = [];
  readonly versions = new Map<string, number>();

  constructor(
    private readonly provider: Provider,
    private readonly now: () => number,
    private readonly taskOf: (opId: string) => string | undefined | Promise<string | undefined>,
    /** Kill the client's worker and start a new one on the same state (the runner knows how). */
    private readonly restartWorker: () => Promise<void>,
  ) {}

  // biome-ignore lint/suspicious/noExplicitAny: the control API's JSON answer, read field by field by the harness
  async control(method: string, path: string, body?: unknown): Promise<any> {
    const res = await this.provider.fetch(`${IN_PROCESS_BASE}/_control${path}`, {
      method,
      headers: CONTROL,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** Every task as the provider shows it (`GET /_control/tasks`: the public view with its tenant). */
  async tasks(): Promise<ProviderTask[]> {
    return (await this.control('GET', '/tasks')).data as ProviderTask[];
  }

  private async task(id: string): Promise<ProviderTask | undefined> {
    return (await this.tasks()).find((t) => t.task_id === id);
  }

  /**
   * An object's version as its tenant reads it (`GET /v1/objects/{ref}` with a token of that tenant); 0 when no token
   * of the tenant is left or the object is unknown. Journalled as `object_read`, which no task invariant reads.
   */
  async objectVersion(tenant: string, ref: string): Promise<number> {
    const tokens = (await this.control('GET', '/principals')).tokens as Record<string, { tenant: string }>;
    const token = Object.entries(tokens).find(([, p]) => p.tenant === tenant)?.[0];
    if (!token) return 0;
    const res = await this.provider.fetch(`${IN_PROCESS_BASE}/v1/objects/${encodeURIComponent(ref)}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!res.ok) return 0;
    return ((await res.json()) as { version: number }).version;
  }

  private note(e: Omit<HarnessEvent, 'after_seq' | 'at'>): void {
    this.events.push({ after_seq: this.provider.journal.lastSeq(), at: new Date(this.now()).toISOString(), ...e });
  }

  /** Task behaviour, the scenario's objects (their versions kept for the submits) and its fault plan. */
  async setUp(sc: TaskScenario): Promise<void> {
    await this.control('PUT', '/task-behavior', sc.task_behavior ?? {});
    for (const o of sc.objects) {
      const put = await this.control('PUT', `/objects/${o.ref}`, { tenant: o.tenant, data: o.data });
      this.versions.set(o.ref, put.version);
      this.note({ kind: 'put_object', object_ref: o.ref, tenant: o.tenant });
    }
    if (sc.faults.length > 0) this.provider.control.setFaults({ seed: sc.seed, rules: sc.faults });
  }

  private queue: Promise<void> = Promise.resolve();

  /** Steps run one after another, in the order they came due (two steps at one moment: the first finishes first). */
  step(a: TaskStepAction): Promise<void> {
    const next = this.queue.then(() => this.run(a));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async run(a: TaskStepAction): Promise<void> {
    if (a.type === 'edit_object') {
      await this.control('PUT', `/objects/${a.ref}`, { tenant: a.tenant, data: a.data });
      this.note({ kind: 'put_object', object_ref: a.ref, tenant: a.tenant });
      return;
    }
    if (a.type === 'restart_worker') {
      await this.restartWorker();
      this.note({ kind: 'restart_worker' });
      return;
    }
    if (a.type === 'set_principals') {
      await this.control('PUT', '/principals', { tokens: a.tokens });
      this.note({ kind: 'set_principals', detail: { tokens: Object.keys(a.tokens) } });
      return;
    }
    const id = await this.taskOf(a.op);
    // Through the control view: like every request it catches up on drafting that fell due (a timer may run late).
    const t = id ? await this.task(id) : undefined;
    const pv = a.proposal === 'current' ? t?.result?.proposal.proposal_version : a.proposal;
    if (!id || pv === undefined) {
      this.problems.push(`step ${a.decision} on ${a.op}: no task or no proposal yet`);
      return;
    }
    const res = await this.provider
      .fetch(`${IN_PROCESS_BASE}/v1/tasks/${id}/review`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decision: a.decision, proposal_version: pv, comment: 'harness' }),
      })
      .catch(() => null);
    const status = res?.status ?? 0;
    const body = (await res?.json().catch(() => null)) as { code?: string; task?: { state?: string } } | null;
    this.note({ kind: 'review', task_id: id, decision: a.decision, status });
    const expected = a.expect_status ?? 200;
    if (expected === 'any' || status === expected) return;
    // In real time a client may legitimately apply before a later review step (it polled at the right moment):
    // the step then meets a final task. That run did not exercise the scenario's point; it is not the client's fault.
    const after = await this.task(id);
    if (
      status === 409 &&
      body?.code === 'invalid_state' &&
      after &&
      ['applied', 'rejected', 'failed', 'apply_failed'].includes(after.state)
    ) {
      this.notExercised.push(`step ${a.decision} on ${a.op} came after the task was already ${after.state}`);
      return;
    }
    const why = [body?.code, after ? `task ${after.state}` : undefined].filter(Boolean).join(', ');
    this.problems.push(`step ${a.decision} on ${a.op} with ${a.token}: ${status}${why ? ` (${why})` : ''}, expected ${expected}`);
  }
}
