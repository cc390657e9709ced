import type { Db } from './database.js';

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type KeyRecord =
  | { state: 'in_flight'; fingerprint: string }
  | { state: 'done'; fingerprint: string; answer: StoredAnswer; job_id: string | null };

export interface KeyScope {
  tenant: string;
  subject: string;
  scope: string;
  key: string;
}

interface Raw {
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number | null;
  headers: string | null;
  body: string | null;
  job_id: string | null;
  expires_at: number;
}

/** Remembered idempotency keys: only requests that executed are stored; an expired key is free again. */
export class IdempotencyRepo {
  private readonly getStmt;
  private readonly delStmt;
  private readonly reserveStmt;
  private readonly completeStmt;
  private readonly storeStmt;
  private readonly resetStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string, string, string, string], Raw>(
      'SELECT fingerprint, state, status, headers, body, job_id, expires_at FROM idempotency WHERE tenant = ? AND subject = ? AND scope = ? AND key = ?',
    );
    this.delStmt = db.prepare('DELETE FROM idempotency WHERE tenant = ? AND subject = ? AND scope = ? AND key = ?');
    this.reserveStmt = db.prepare(
      `INSERT INTO idempotency (tenant, subject, scope, key, fingerprint, state, created_at, expires_at) VALUES (?, ?, ?, ?, ?, 'in_flight', ?, ?)`,
    );
    this.completeStmt = db.prepare(
      `UPDATE idempotency SET state = 'done', status = ?, headers = ?, body = ?, job_id = ?, expires_at = ? WHERE tenant = ? AND subject = ? AND scope = ? AND key = ?`,
    );
    this.resetStmt = db.prepare('DELETE FROM idempotency');
    this.storeStmt = db.prepare(
      `INSERT INTO idempotency (tenant, subject, scope, key, fingerprint, state, status, headers, body, job_id, created_at, expires_at)
        VALUES (?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?)`,
    );
  }

  private args(s: KeyScope): [string, string, string, string] {
    return [s.tenant, s.subject, s.scope, s.key];
  }

  lookup(s: KeyScope, now: number): KeyRecord | undefined {
    const r = this.getStmt.get(...this.args(s));
    if (!r) return undefined;
    if (r.expires_at <= now && r.state === 'done') {
      this.delStmt.run(...this.args(s));
      return undefined;
    }
    if (r.state === 'in_flight') return { state: 'in_flight', fingerprint: r.fingerprint };
    return {
      state: 'done',
      fingerprint: r.fingerprint,
      job_id: r.job_id,
      answer: { status: r.status!, headers: JSON.parse(r.headers ?? '{}'), body: r.body ?? '' },
    };
  }

  reserve(s: KeyScope, fingerprint: string, now: number, ttlMs: number): void {
    this.reserveStmt.run(...this.args(s), fingerprint, now, now + ttlMs);
  }

  release(s: KeyScope): void {
    this.delStmt.run(...this.args(s));
  }

  complete(s: KeyScope, answer: StoredAnswer, jobId: string | null, now: number, ttlMs: number): void {
    this.completeStmt.run(answer.status, JSON.stringify(answer.headers), answer.body, jobId, now + ttlMs, ...this.args(s));
  }

  /**
   * `reserve` and `complete` in one statement, for a request that executes in the transaction that stores its
   * answer (nothing can see the key in flight in between): one row written once instead of inserted, then updated.
   */
  store(s: KeyScope, fingerprint: string, answer: StoredAnswer, jobId: string | null, now: number, ttlMs: number): void {
    this.storeStmt.run(...this.args(s), fingerprint, answer.status, JSON.stringify(answer.headers), answer.body, jobId, now, now + ttlMs);
  }

  /** Forget every key (the provider's reset). */
  reset(): void {
    this.resetStmt.run();
  }
}
