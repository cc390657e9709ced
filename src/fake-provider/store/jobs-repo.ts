import { statementCache, type Db } from './database.js';
import {
  behaviorText,
  DUE_COLUMNS,
  dueRow,
  fromRaw,
  INSERT_COLUMNS,
  type DueJob,
  type JobPatch,
  type JobRow,
  type JobViewRow,
  type NewJob,
  type RawRow,
  type StepWrite,
  type ViewValues,
  viewRow,
} from './jobs-rows.js';

export {
  viewRow,
  type DueJob,
  type JobPatch,
  type JobRow,
  type JobViewRow,
  type NewJob,
  type StepWrite,
  type ViewValues,
} from './jobs-rows.js';

export interface FindQuery {
  tenant: string;
  client_ref?: string;
  subject_key?: { subject: string; key: string };
  beforeSeq?: number;
  limit: number;
}

export class JobsRepo {
  private readonly byId;
  private readonly viewById;
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly stepStmt;
  private readonly nextDueStmt;
  private readonly allStmt;
  private readonly resetStmt;
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = statementCache(db);
    this.byId = db.prepare<[string], RawRow>('SELECT * FROM jobs WHERE job_id = ?');
    this.viewById = db
      .prepare<[string], unknown>(
        `SELECT job_id, tenant, kind, state, client_ref, trace_id, created_at, updated_at, running_at, progress_at, finish_at, cancel_requested_at, cancel_effective_at,
        behavior, CASE WHEN state = 'succeeded' THEN result END AS result, CASE WHEN state = 'failed' THEN error END AS error FROM jobs WHERE job_id = ?`,
      )
      .raw();
    // Positional parameters: binding 22 named ones costs more than the insert's own SQL work.
    this.insertStmt = db.prepare<unknown[]>(
      `INSERT INTO jobs (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map(() => '?').join(', ')})`,
    );
    this.dueStmt = db
      .prepare<[number], unknown[]>(
        `SELECT ${DUE_COLUMNS} FROM jobs WHERE next_step_at IS NOT NULL AND next_step_at <= ? ORDER BY next_step_at, seq`,
      )
      .raw();
    this.stepStmt = db.prepare<unknown[]>(
      `UPDATE jobs SET state = ?, updated_at = ?, progress_at = ?, finish_at = ?, cancel_effective_at = ?, next_step_at = ?,
        finished_at = ?, result = COALESCE(?, result) WHERE seq = ?`,
    );
    this.nextDueStmt = db.prepare<[], { at: number | null }>('SELECT MIN(next_step_at) AS at FROM jobs WHERE next_step_at IS NOT NULL');
    this.allStmt = db.prepare<[], RawRow>('SELECT * FROM jobs ORDER BY seq');
    this.resetStmt = db.prepare('DELETE FROM jobs');
  }

  get(jobId: string): JobRow | undefined {
    const r = this.byId.get(jobId);
    return r ? fromRaw(r) : undefined;
  }

  /** A job as its tenant sees it: another tenant's job does not exist. */
  getForTenant(jobId: string, tenant: string): JobRow | undefined {
    const job = this.get(jobId);
    return job && job.tenant === tenant ? job : undefined;
  }

  /**
   * The hot path of a status read: only the columns its answer shows, for its tenant only, as values in the SELECT's
   * order (a raw row: better-sqlite3 builds a keyed row object at twice the cost of the step). `viewRow` reads them.
   */
  viewValuesForTenant(jobId: string, tenant: string): ViewValues | undefined {
    const r = this.viewById.get(jobId) as ViewValues | undefined;
    return r && r[1] === tenant ? r : undefined;
  }

  viewForTenant(jobId: string, tenant: string): JobViewRow | undefined {
    const r = this.viewValuesForTenant(jobId, tenant);
    return r && viewRow(r);
  }

  /** Returns the new job's `seq`. */
  insert(job: NewJob): number {
    const values: unknown[] = INSERT_COLUMNS.map((c) => job[c]);
    values[INSERT_COLUMNS.indexOf('input')] = JSON.stringify(job.input);
    values[INSERT_COLUMNS.indexOf('behavior')] = behaviorText(job.behavior);
    values[INSERT_COLUMNS.indexOf('result')] = job.result ? JSON.stringify(job.result) : null;
    values[INSERT_COLUMNS.indexOf('error')] = job.error ? JSON.stringify(job.error) : null;
    return Number(this.insertStmt.run(values).lastInsertRowid);
  }

  update(jobId: string, patch: JobPatch): void {
    const cols = Object.keys(patch) as (keyof JobPatch)[];
    if (cols.length === 0) return;
    const values = cols.map((c) => {
      const v = patch[c];
      return c === 'result' || c === 'error' ? (v ? JSON.stringify(v) : null) : v;
    });
    this.stmt(`UPDATE jobs SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE job_id = ?`).run(...values, jobId);
  }

  /** Jobs with a step due at or before `now`, in due order (ties by creation): only what a step reads. */
  due(now: number): DueJob[] {
    return this.dueStmt.all(now).map(dueRow);
  }

  /** Write a life-cycle step (by `seq`: no job-id index lookup). */
  writeStep(w: StepWrite): void {
    this.stepStmt.run(
      w.state,
      w.updated_at,
      w.progress_at,
      w.finish_at,
      w.cancel_effective_at,
      w.next_step_at,
      w.finished_at,
      w.result ? JSON.stringify(w.result) : null,
      w.seq,
    );
  }

  nextDueAt(): number | null {
    return this.nextDueStmt.get()?.at ?? null;
  }

  find(q: FindQuery): JobRow[] {
    const where = ['tenant = ?'];
    const args: (string | number)[] = [q.tenant];
    if (q.client_ref !== undefined) {
      where.push('client_ref = ?');
      args.push(q.client_ref);
    }
    if (q.subject_key) {
      where.push('subject = ? AND idempotency_key = ?');
      args.push(q.subject_key.subject, q.subject_key.key);
    }
    if (q.beforeSeq !== undefined) {
      where.push('seq < ?');
      args.push(q.beforeSeq);
    }
    const sql = `SELECT * FROM jobs WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
    return (this.stmt(sql).all(...args, q.limit) as RawRow[]).map(fromRaw);
  }

  all(): JobRow[] {
    return this.allStmt.all().map(fromRaw);
  }

  /** Forget every job (the provider's reset). */
  reset(): void {
    this.resetStmt.run();
  }
}
