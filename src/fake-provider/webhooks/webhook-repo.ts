import { statementCache, type Db } from '../store/database.js';

export type WebhookStatus = 'pending' | 'sending' | 'held' | 'delivered' | 'failed' | 'dropped';

export interface WebhookRow {
  seq: number;
  event_id: string;
  job_id: string;
  tenant: string;
  url: string;
  type: string;
  payload: string;
  attempts: number;
  copies: number;
  next_attempt_at: number | null;
  status: WebhookStatus;
  fault: string | null;
}

export type NewWebhook = Omit<WebhookRow, 'seq' | 'attempts'>;

/** Pending and past webhook deliveries; `next_attempt_at` is indexed so the scheduler never scans. */
export class WebhookRepo {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly nextStmt;
  private readonly heldStmt;
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = statementCache(db);
    this.insertStmt =
      db.prepare(`INSERT INTO webhook_events (event_id, job_id, tenant, url, type, payload, copies, next_attempt_at, status, fault)
      VALUES (@event_id, @job_id, @tenant, @url, @type, @payload, @copies, @next_attempt_at, @status, @fault)`);
    this.dueStmt = db.prepare<[number], WebhookRow>(
      `SELECT * FROM webhook_events WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? AND status = 'pending' ORDER BY next_attempt_at, seq`,
    );
    this.nextStmt = db.prepare<[], { at: number | null }>(`SELECT MIN(next_attempt_at) AS at FROM webhook_events WHERE status = 'pending'`);
    this.heldStmt = db.prepare<[string], WebhookRow>(`SELECT * FROM webhook_events WHERE job_id = ? AND status = 'held' ORDER BY seq`);
    // Deliveries that were on the wire when the process stopped are tried again.
    db.prepare(`UPDATE webhook_events SET status = 'pending' WHERE status = 'sending'`).run();
  }

  insert(w: NewWebhook): void {
    this.insertStmt.run(w);
  }

  due(now: number): WebhookRow[] {
    return this.dueStmt.all(now);
  }

  nextDueAt(): number | null {
    return this.nextStmt.get()?.at ?? null;
  }

  held(jobId: string): WebhookRow[] {
    return this.heldStmt.all(jobId);
  }

  update(eventId: string, patch: Partial<Pick<WebhookRow, 'status' | 'attempts' | 'next_attempt_at'>>): void {
    const cols = Object.keys(patch) as (keyof typeof patch)[];
    this.stmt(`UPDATE webhook_events SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE event_id = ?`).run(
      ...cols.map((c) => patch[c]),
      eventId,
    );
  }

  /** Forget every delivery, pending or past (the provider's reset). */
  reset(): void {
    this.stmt('DELETE FROM webhook_events').run();
  }
}
