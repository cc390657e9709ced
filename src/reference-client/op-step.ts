import type { OperationState } from '../contract/client-protocol.js';
import type { Clock } from '../lib/clock.js';
import { isoTime } from '../lib/clock.js';
import type { JobState } from '../contract/jobs.js';
import { requestTimeout } from './deadlines.js';
import { call, summarize, type CallOutcome, type CallSpec, type HttpOptions } from './http.js';
import { transition, type EvidenceKind } from './state-machine.js';
import { CancelRecordedError, LeaseLostError, type Lease, type OperationStore } from './store/operation-store.js';
import type { AuditInput, EvidenceSummary, OperationPatch, OperationRow } from './types.js';
import type { WireAdapter } from './wire/adapter.js';

export interface StepEnv {
  store: OperationStore;
  clock: Clock;
  http: HttpOptions;
  workerId: string;
  leaseMs: number;
  signal: AbortSignal;
  webhookUrl: string | null;
}

export interface Move {
  to: OperationState;
  evidence: EvidenceKind;
  cause: string;
  call?: CallOutcome;
  jobState?: JobState | null;
  jobId?: string | null;
  otherJobId?: string | null;
  detail?: string | null;
}

/**
 * One worker's turn on one leased operation. The only way it talks to the provider is `send` (lease checked first)
 * and the only way it writes is `commit` (transitions checked by the table, then CAS on the fencing token). Both
 * throw LeaseLostError once the lease is gone, which ends the turn with nothing sent and nothing written.
 */
export class OpStep {
  private calls: AuditInput[] = [];

  constructor(
    readonly env: StepEnv,
    /** The API spoken (wire/adapter.ts): the steps ask it for every request and never ask which API it is. */
    readonly wire: WireAdapter,
    readonly lease: Lease,
    public rec: OperationRow,
  ) {}

  now(): number {
    return this.env.clock.now();
  }

  async send(spec: Omit<CallSpec, 'traceId'>): Promise<CallOutcome> {
    if (this.env.signal.aborted) throw new LeaseLostError(this.rec.operation_id);
    if (!(await this.env.store.renew(this.lease, this.now(), this.env.leaseMs))) throw new LeaseLostError(this.rec.operation_id);
    const sentAt = this.now();
    const timeoutMs = requestTimeout(this.rec, spec.route, sentAt);
    const outcome = await call(
      this.env.http,
      { ...spec, traceId: this.rec.trace_id, leaseToken: this.lease.token, timeoutMs },
      this.env.signal,
    );
    this.calls.push({
      at: this.now(),
      actor: this.env.workerId,
      kind: 'call',
      operation_id: this.rec.operation_id,
      detail: { route: spec.route, method: spec.method, path: spec.path, sent_at: isoTime(sentAt), ...summarize(outcome) },
    });
    return outcome;
  }

  /**
   * Write a change under the lease. Moves are checked one by one against the transition table here, so a refused
   * move fails before anything is written, and again by the store against the state it holds.
   */
  async commit(change: { patch?: OperationPatch; moves?: Move[]; requireNoCancel?: boolean; audit?: AuditInput[] }): Promise<void> {
    const moves = change.moves ?? [];
    let from: OperationState = this.rec.state;
    const at = this.now();
    const history = moves.map((m) => {
      transition(from, m.to, m.evidence);
      from = m.to;
      const s = m.call ? summarize(m.call) : { status: null, request_id: null, detail: null };
      const evidence: EvidenceSummary = {
        kind: m.evidence,
        status: s.status,
        request_id: s.request_id,
        job_state: m.jobState ?? null,
        job_id: m.jobId ?? null,
        other_job_id: m.otherJobId ?? null,
        detail: m.detail ?? s.detail,
      };
      return {
        at: isoTime(at),
        actor: this.env.workerId,
        to: m.to,
        cause: m.cause,
        evidence,
        remote_state: change.patch?.remote_state ?? this.rec.remote_state,
        lease_token: this.lease.token,
      };
    });
    const patch: OperationPatch = { ...change.patch };
    const audit: AuditInput[] = [
      ...this.calls,
      ...(change.audit ?? []),
      ...history.map((h) => ({
        at,
        actor: this.env.workerId,
        kind: 'transition' as const,
        operation_id: this.rec.operation_id,
        detail: { to: h.to, cause: h.cause, evidence: h.evidence },
      })),
    ];
    const outcome = await this.env.store.commit(this.lease, { patch, history, audit, requireNoCancel: change.requireNoCancel });
    if (outcome === 'cancel_recorded') throw new CancelRecordedError(this.rec.operation_id);
    if (outcome === 'lease_lost') {
      // The answers we got are facts even if we may no longer act on them: keep them in the audit, not the record.
      if (this.calls.length) await this.env.store.appendAudit(this.calls.map((c) => ({ ...c, kind: 'stale_answer' as const })));
      this.calls = [];
      throw new LeaseLostError(this.rec.operation_id);
    }
    this.calls = [];
    this.rec = { ...this.rec, ...patch, state: from };
  }

  /** Schedule the next turn no earlier than the Retry-After hold. */
  after(delayMs: number): number {
    return Math.max(this.now() + delayMs, this.rec.not_before);
  }
}
