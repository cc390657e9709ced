import { isoTime, type Clock } from '../../lib/clock.js';
import type { IdSource } from '../../lib/ids.js';
import type { FaultEngine } from '../faults/fault-engine.js';
import type { Job } from '../../contract/jobs.js';
import type { WebhookEventType } from '../../contract/webhooks.js';
import type { WebhookFault } from '../../contract/faults.js';
import type { FiredFault, WebhookEntry } from '../../contract/journal.js';
import type { JournalRepo } from '../store/journal-repo.js';
import { signDelivery } from './signing.js';
import type { WebhookRepo, WebhookRow } from './webhook-repo.js';

export interface WebhookOptions {
  /** Attempts per event before giving up (provider-api.md: 6). */
  maxAttempts: number;
  /** A delivery without a 2xx within this time counts as failed (provider-api.md: 5 s). */
  timeoutMs: number;
  /** First retry delay; doubles each attempt. */
  backoffMs: number;
  /** Spacing between events released by a `reorder` fault, newest first. */
  reorderSpacingMs: number;
}

export const defaultWebhookOptions: WebhookOptions = { maxAttempts: 6, timeoutMs: 5000, backoffMs: 1000, reorderSpacingMs: 20 };

export interface DispatcherDeps {
  repo: WebhookRepo;
  journal: JournalRepo;
  faults: FaultEngine;
  clock: Clock;
  ids: IdSource;
  secretFor: (tenant: string) => string;
  fetch: typeof fetch;
  options: WebhookOptions;
  /** Called whenever the earliest due time may have changed. */
  reschedule: () => void;
  isClosed: () => boolean;
  /** Resolves once the event's job change is committed (a file store's group commit): a delivery never outruns it. */
  beforeSend?: () => Promise<void>;
  /** A job's kind, so a delivery of a kind shaped unsigned (`shapeKind(…, {signed: false})`) goes out without signature. */
  kindOf?: (jobId: string) => string | undefined;
}

export type EventShaper = (
  jobId: string,
  jobEvent: WebhookEventType,
  eventId: string,
  at: number,
) => { type: string; payload: string } | null;

type Forged = NonNullable<WebhookEntry['forged']>;

/** A secret that is no tenant's: a delivery signed with it fails every verifier. */
const WRONG_SECRET = `whsec_${Buffer.from('not the tenant secret, a forger').toString('base64')}`;

/** The headers of a forged delivery: the Standard Webhooks ones without a signature, or signed with the wrong secret. */
function forgedHeaders(forged: Forged | undefined, w: WebhookRow): Record<string, string> | null {
  if (!forged) return null;
  const signed = signDelivery(WRONG_SECRET, w.event_id, w.payload);
  if (forged === 'wrong_secret') return { ...signed };
  const { 'webhook-signature': _none, ...unsigned } = signed;
  return unsigned;
}

const FINAL_EVENTS: ReadonlySet<string> = new Set(['job.succeeded', 'job.failed', 'job.cancelled', 'job.expired']);

/** Queues signed job events, applies webhook faults, delivers with retries, and journals every attempt. */
export class WebhookDispatcher {
  private readonly inflight = new Set<Promise<void>>();
  private readonly shapers = new Map<string, EventShaper>();
  private readonly unsigned = new Set<string>();

  constructor(private readonly d: DispatcherDeps) {}

  /**
   * A dialect's own events for jobs of its kinds: the shaper turns a job event into the dialect's event (its type and
   * body), or null when the dialect sends none for it.
   */
  shapeKind(kind: string, shaper: EventShaper, opts: { signed?: boolean } = {}): void {
    this.shapers.set(kind, shaper);
    if (opts.signed === false) this.unsigned.add(kind);
    else this.unsigned.delete(kind);
  }

  /** Standard Webhooks headers, or only the content type for an API that signs nothing. */
  private headersFor(w: WebhookRow): Record<string, string> {
    const kind = this.unsigned.size ? this.d.kindOf?.(w.job_id) : undefined;
    if (kind !== undefined && this.unsigned.has(kind)) return { 'content-type': 'application/json' };
    return { ...signDelivery(this.d.secretFor(w.tenant), w.event_id, w.payload) };
  }

  /** Queue one event for a job's state change (inside the caller's transaction). */
  enqueue(
    job: { job_id: string; tenant: string; webhook_url: string | null; kind?: string },
    jobType: WebhookEventType,
    data: Job,
    at: number,
  ): void {
    if (!job.webhook_url) return;
    const eventId = this.d.ids('evt');
    const shaper = job.kind === undefined ? undefined : this.shapers.get(job.kind);
    const shaped = shaper
      ? shaper(job.job_id, jobType, eventId, at)
      : { type: jobType, payload: JSON.stringify({ id: eventId, type: jobType, created_at: isoTime(at), data }) };
    // Webhook rules count every job event, also one the dialect does not send (OpenAI sends final events only): a
    // forger needs no event of the provider's, so a forgery can come before the truth in every dialect; any other
    // fault on an event that is not sent has nothing to act on.
    const fired = this.d.faults.decide('webhook');
    if (fired?.fault.type === 'forge') this.forge(job, shaper, fired.fault, data, at, fired.rule_id);
    if (!shaped) return;
    const { type, payload } = shaped;
    const final = FINAL_EVENTS.has(jobType);
    // A forgery is a delivery of its own (below): the real event goes out untouched.
    const fault = fired && fired.fault.type !== 'forge' ? JSON.stringify({ rule_id: fired.rule_id, type: fired.fault.type }) : null;
    const base = { event_id: eventId, job_id: job.job_id, tenant: job.tenant, url: job.webhook_url, type, payload, fault, copies: 1 };
    const f = fired?.fault;
    if (f?.type === 'drop') {
      this.d.repo.insert({ ...base, next_attempt_at: null, status: 'dropped' });
      this.d.journal.append({
        type: 'webhook',
        at: isoTime(this.d.clock.now()),
        event_id: eventId,
        event_type: type,
        job_id: job.job_id,
        url: job.webhook_url,
        attempt: 0,
        outcome: 'dropped',
        status: null,
        error: null,
        fault: { rule_id: fired!.rule_id, type: 'drop' },
      });
      // Events held by `reorder` still go out when the final one is dropped: a drop loses one event, not its job's.
      if (final) this.releaseHeld(job.job_id, at);
      return;
    }
    if (f?.type === 'reorder') {
      this.d.repo.insert({ ...base, next_attempt_at: null, status: 'held' });
      // A held final event releases itself too (newest first), or a plan reordering every event delivers nothing.
      if (final) this.releaseHeld(job.job_id, at);
      return;
    }
    const copies = f?.type === 'duplicate' ? 1 + f.copies : 1;
    const delay = f?.type === 'delay' ? f.ms : 0;
    this.d.repo.insert({ ...base, copies, next_attempt_at: at + delay, status: 'pending' });
    // Held events follow the final one, also when that one is delayed.
    if (final) this.releaseHeld(job.job_id, at + delay);
  }

  /**
   * A `forge` fault: a delivery the provider never made, claiming the job reached `f.claim`, queued at once. It is
   * tried once (a forger does not retry) and journalled with `forged`, so the judge never counts it as the provider's.
   */
  private forge(
    job: { job_id: string; tenant: string; webhook_url: string | null },
    shaper: EventShaper | undefined,
    f: Extract<WebhookFault, { type: 'forge' }>,
    data: Job,
    at: number,
    ruleId: string,
  ): void {
    const eventId = this.d.ids('evt');
    const type: WebhookEventType = `job.${f.claim}`;
    const claimed: Job = {
      ...data,
      state: f.claim,
      result: null,
      error: f.claim === 'failed' ? { code: 'job_failed', message: 'the job failed' } : null,
    };
    const shaped = shaper
      ? shaper(job.job_id, type, eventId, at)
      : { type, payload: JSON.stringify({ id: eventId, type, created_at: isoTime(at), data: claimed }) };
    if (!shaped || !job.webhook_url) return;
    const forged: Forged = f.signature === 'none' ? 'unsigned' : 'wrong_secret';
    const fault = JSON.stringify({ rule_id: ruleId, type: 'forge', forged });
    this.d.repo.insert({
      event_id: eventId,
      job_id: job.job_id,
      tenant: job.tenant,
      url: job.webhook_url,
      type: shaped.type,
      payload: shaped.payload,
      fault,
      copies: 1,
      next_attempt_at: at,
      status: 'pending',
    });
  }

  /** Held (reordered) events go out after the final one, newest first. */
  private releaseHeld(jobId: string, at: number): void {
    const held = this.d.repo.held(jobId).reverse();
    held.forEach((w, i) => {
      this.d.repo.update(w.event_id, { status: 'pending', next_attempt_at: at + (i + 1) * this.d.options.reorderSpacingMs });
    });
  }

  /** Start every delivery that is due. Deliveries run in the background; `idle()` waits for them. */
  run(now: number): void {
    for (const w of this.d.repo.due(now)) {
      this.d.repo.update(w.event_id, { status: 'sending', next_attempt_at: null });
      const p = this.deliver(w)
        // A provider closed while a delivery was on the wire (a harness restart) has nowhere to record it; anything
        // else is a bug worth a line on the console, never an unhandled rejection that ends the process.
        .catch((err: unknown) => {
          if (!this.d.isClosed()) console.error(`[jobproof] webhook delivery ${w.event_id} failed: ${(err as Error)?.stack ?? err}`);
        })
        .finally(() => this.inflight.delete(p));
      this.inflight.add(p);
    }
  }

  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private async deliver(w: WebhookRow): Promise<void> {
    const attempt = w.attempts + 1;
    let delivered = false;
    if (this.d.beforeSend) await this.d.beforeSend();
    const { forged, ...fault } = w.fault ? (JSON.parse(w.fault) as FiredFault & { forged?: Forged }) : { forged: undefined };
    for (let copy = 0; copy < w.copies; copy++) {
      const outcome = await this.post(w, forged);
      delivered ||= outcome.ok;
      this.d.journal.append({
        type: 'webhook',
        at: isoTime(this.d.clock.now()),
        event_id: w.event_id,
        event_type: w.type,
        job_id: w.job_id,
        url: w.url,
        attempt,
        outcome: outcome.ok ? 'delivered' : 'failed',
        status: outcome.status,
        error: outcome.error,
        fault: w.fault ? (fault as FiredFault) : null,
        ...(forged ? { forged } : {}),
      });
    }
    if (delivered) {
      this.d.repo.update(w.event_id, { status: 'delivered', attempts: attempt });
    } else if (attempt >= this.d.options.maxAttempts || forged) {
      this.d.repo.update(w.event_id, { status: 'failed', attempts: attempt });
    } else {
      const retryAt = this.d.clock.now() + this.d.options.backoffMs * 2 ** (attempt - 1);
      this.d.repo.update(w.event_id, { status: 'pending', attempts: attempt, next_attempt_at: retryAt });
    }
    this.d.reschedule();
  }

  private async post(w: WebhookRow, forged?: Forged): Promise<{ ok: boolean; status: number | null; error: string | null }> {
    const controller = new AbortController();
    const timer = this.d.clock.setTimeout(() => controller.abort(new Error('timeout')), this.d.options.timeoutMs);
    try {
      const res = await this.d.fetch(w.url, {
        method: 'POST',
        headers: forgedHeaders(forged, w) ?? this.headersFor(w),
        body: w.payload,
        signal: controller.signal,
      });
      await res.arrayBuffer().catch(() => undefined);
      return { ok: res.status >= 200 && res.status < 300, status: res.status, error: null };
    } catch (err) {
      return { ok: false, status: null, error: controller.signal.aborted ? 'timeout' : String((err as Error)?.message ?? err) };
    } finally {
      this.d.clock.clearTimeout(timer);
    }
  }
}
