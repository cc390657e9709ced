import { randomBytes } from 'node:crypto';
import {
  CancelInputSchema,
  ChangedRequestError,
  SubmitInputSchema,
  UnknownOperationError,
  type CancelInput,
  type InProcessClient,
  type InProcessClientOptions,
  type OperationRecord,
  type SubmitInput,
} from '../contract/client-protocol.js';
import { isoTime } from '../lib/clock.js';
import { requestFingerprint } from './create.js';
import { MAX_REQUEST_MS } from './deadlines.js';
import { newOperationRow } from './new-operation-row.js';
import { showOperation } from './show.js';
import type { OperationStore } from './store/operation-store.js';
import { openOperationStore } from './store/open-store.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { Worker } from './worker.js';
import { wireFor, type WireAdapter, type WireChoice } from './wire/index.js';

/** The in-process options, plus the wire API to speak (client-protocol.md `JOBPROOF_DIALECT`; native by default). */
export type ReferenceClientOptions = InProcessClientOptions & { api?: WireChoice };

export class ReferenceClient implements InProcessClient {
  readonly store: OperationStore;
  private worker: Worker | null = null;
  private readonly receiver: WebhookReceiver | null;
  /** The API this client speaks; one adapter serves every operation and worker (wire/adapter.ts). */
  private readonly wire: WireAdapter;

  constructor(
    private readonly opts: ReferenceClientOptions,
    store?: OperationStore,
  ) {
    this.store = store ?? openOperationStore(opts.state, process.env.JOBPROOF_CLIENT_DB, { leaseMs: opts.leaseMs });
    this.wire = wireFor(opts.api ?? { dialect: 'native' }, opts.providerUrl);
    this.receiver = opts.webhook
      ? new WebhookReceiver(opts.webhook.secret, {
          onEvent: (jobId, eventId, type) => this.onWebhook(jobId, eventId, type),
        })
      : null;
  }

  async submit(input: SubmitInput): Promise<void> {
    const op = SubmitInputSchema.parse(input);
    const now = this.opts.clock.now();
    const fp = requestFingerprint(op.kind, op.input, op.operation_id);
    const row = newOperationRow({
      operation_id: op.operation_id,
      kind: op.kind,
      input: op.input,
      request_fingerprint: fp,
      // 128 random bits: a key must never collide with another operation's, even across clients of one tenant.
      idempotency_key: `idem_${randomBytes(16).toString('hex')}`,
      trace_id: `tr_${randomBytes(12).toString('hex')}`,
      submitted_at: now,
      create_deadline_at: now + op.create_deadline_ms,
      result_deadline_at: now + op.result_deadline_ms,
    });
    const actor = this.opts.workerId;
    const outcome = await this.store.insertOperation(
      row,
      {
        at: isoTime(now),
        actor,
        from: null,
        to: 'create_pending',
        cause: 'submit',
        evidence: { kind: 'submit' },
        remote_state: null,
        lease_token: null,
      },
      [
        {
          at: now,
          actor,
          kind: 'intent',
          operation_id: op.operation_id,
          detail: { action: 'submit', request_fingerprint: fp, idempotency_key: row.idempotency_key, trace_id: row.trace_id },
        },
      ],
    );
    if (outcome === 'exists') {
      const cur = (await this.store.get(op.operation_id))!;
      const same =
        cur.request_fingerprint === fp &&
        cur.create_deadline_at - cur.submitted_at === op.create_deadline_ms &&
        cur.result_deadline_at - cur.submitted_at === op.result_deadline_ms;
      if (!same)
        throw new ChangedRequestError(
          `operation ${op.operation_id} exists with a different request; a changed request needs a new operation id`,
        );
      return;
    }
    this.worker?.wake();
  }

  async cancel(operationId: string, intent: CancelInput): Promise<void> {
    const c = CancelInputSchema.parse(intent);
    const now = this.opts.clock.now();
    const ok = await this.store.recordCancelIntent(operationId, { ...c, requested_at: now, deadline_at: now + c.cancel_deadline_ms }, [
      {
        at: now,
        actor: c.actor,
        kind: 'intent',
        operation_id: operationId,
        detail: { action: 'cancel', reason: c.reason, cancel_deadline_ms: c.cancel_deadline_ms, recorded_by: this.opts.workerId },
      },
    ]);
    if (!ok) throw new UnknownOperationError(`unknown operation ${operationId}`);
    this.worker?.wake();
  }

  async work({ signal }: { signal: AbortSignal }): Promise<void> {
    const o = this.opts;
    const wire = this.wire;
    this.worker = new Worker({
      store: this.store,
      clock: o.clock,
      workerId: o.workerId,
      leaseMs: o.leaseMs,
      webhookUrl: o.webhook?.url ?? null,
      http: {
        fetch: o.fetch,
        clock: o.clock,
        providerUrl: o.providerUrl,
        token: o.token,
        workerId: o.workerId,
        timeoutMs: MAX_REQUEST_MS,
        auth: wire.auth,
      },
      wire,
    });
    try {
      await this.worker.run(signal);
    } finally {
      this.worker = null;
    }
  }

  async show(operationId: string): Promise<OperationRecord> {
    return showOperation(this.store, operationId, this.wire);
  }

  async handleWebhook(request: Request): Promise<Response> {
    if (!this.receiver) return new Response('webhooks not enabled', { status: 404 });
    return this.receiver.handle(request);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  private async onWebhook(jobId: string, eventId: string, type: string): Promise<void> {
    const op = await this.store.findByRemoteJobId(jobId);
    if (!op) return;
    await this.store.appendAudit([
      {
        at: this.opts.clock.now(),
        actor: this.opts.workerId,
        kind: 'webhook',
        operation_id: op.operation_id,
        detail: { event_id: eventId, type, job_id: jobId },
      },
    ]);
    if (this.worker) this.worker.poke(op.operation_id);
    else await this.store.pollSoon(op.operation_id, this.opts.clock.now());
  }
}
