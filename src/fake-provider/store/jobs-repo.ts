import type { Behavior } from '../../contract/behavior.js';
import type { JobResult, JobState } from '../../contract/jobs.js';
import { statementCache, type Db } from './database.js';

export interface JobRow {
  seq: number;
  job_id: string;
  tenant: string;
  subject: string;
  kind: string;
  input: Record<string, unknown>;
  client_ref: string | null;
  idempotency_key: string | null;
  trace_id: string | null;
  webhook_url: string | null;
  behavior: Behavior;
  state: JobState;
  created_at: number;
  updated_at: number;
  running_at: number;
  progress_at: number | null;
  finish_at: number | null;
  cancel_requested_at: number | null;
  cancel_effective_at: number | null;
  next_step_at: number | null;
  result: JobResult | null;
  error: { code: string; message: string } | null;
  finished_at: number | null;
  results_fetched: number;
}

type RawRow = Omit<JobRow, 'input' | 'behavior' | 'result' | 'error'> & {
  input: string;
  behavior: string;
  result: string | null;
  error: string | null;
};

/**
 * Jobs of one provider share a handful of behaviours (one per configured kind): parse each text once. Bounded, so a
 * provider whose behaviour changes on every job (property runs) does not grow it without end.
 */
const behaviors = new Map<string, Behavior>();
function parseBehavior(text: string): Behavior {
  let b = behaviors.get(text);
  if (!b) {
    if (behaviors.size >= 256) behaviors.clear();
    b = JSON.parse(text) as Behavior;
    behaviors.set(text, b);
  }
  return b;
}

/** The text of each behaviour object in use (one per configured kind): a job insert does not serialise it again. */
const behaviorTexts = new WeakMap<Behavior, string>();
function behaviorText(b: Behavior): string {
  let t = behaviorTexts.get(b);
  if (t === undefined) {
    t = JSON.stringify(b);
    behaviorTexts.set(b, t);
  }
  return t;
}

const INSERT_COLUMNS = [
  'job_id',
  'tenant',
  'subject',
  'kind',
  'input',
  'client_ref',
  'idempotency_key',
  'trace_id',
  'webhook_url',
  'behavior',
  'state',
  'created_at',
  'updated_at',
  'running_at',
  'progress_at',
  'finish_at',
  'cancel_requested_at',
  'cancel_effective_at',
  'next_step_at',
  'result',
  'error',
  'finished_at',
] as const satisfies readonly (keyof NewJob)[];

function fromRaw(r: RawRow): JobRow {
  return {
    ...r,
    input: JSON.parse(r.input),
    behavior: parseBehavior(r.behavior),
    result: r.result ? JSON.parse(r.result) : null,
    error: r.error ? JSON.parse(r.error) : null,
  };
}

/** What a status answer needs (engine/job-view.ts), read without the input and the columns it never shows. */
export type JobViewRow = Pick<
  JobRow,
  | 'job_id'
  | 'tenant'
  | 'kind'
  | 'state'
  | 'client_ref'
  | 'trace_id'
  | 'created_at'
  | 'updated_at'
  | 'running_at'
  | 'progress_at'
  | 'finish_at'
  | 'cancel_requested_at'
  | 'cancel_effective_at'
  | 'behavior'
  | 'result'
  | 'error'
>;
/** The status read's SELECT, as values in column order (viewValuesForTenant). */
export type ViewValues = [
  ...[job_id: string, tenant: string, kind: string, state: JobState, client_ref: string | null, trace_id: string | null],
  ...[created_at: number, updated_at: number, running_at: number, progress_at: number | null, finish_at: number | null],
  ...[cancel_requested_at: number | null, cancel_effective_at: number | null],
  ...[behavior: string, result: string | null, error: string | null],
];

/** The row of a status read's values. */
export function viewRow(r: ViewValues): JobViewRow {
  return {
    job_id: r[0],
    tenant: r[1],
    kind: r[2],
    state: r[3],
    client_ref: r[4],
    trace_id: r[5],
    created_at: r[6],
    updated_at: r[7],
    running_at: r[8],
    progress_at: r[9],
    finish_at: r[10],
    cancel_requested_at: r[11],
    cancel_effective_at: r[12],
    behavior: parseBehavior(r[13]),
    result: r[14] === null ? null : JSON.parse(r[14]),
    error: r[15] === null ? null : JSON.parse(r[15]),
  };
}

export type NewJob = Omit<JobRow, 'seq' | 'results_fetched'>;

/** What moving a job along its life cycle reads (engine/job-engine.ts): the view, its webhook and its times. */
export type DueJob = JobViewRow & Pick<JobRow, 'seq' | 'webhook_url' | 'next_step_at' | 'finished_at'>;
type RawDueRow = Omit<DueJob, 'behavior' | 'result' | 'error'> & { behavior: string; result: string | null; error: string | null };

/** The columns a life-cycle step writes; `result` only when the step computed it (null keeps the stored one). */
export type StepWrite = Pick<
  JobRow,
  'seq' | 'state' | 'updated_at' | 'progress_at' | 'finish_at' | 'cancel_effective_at' | 'next_step_at' | 'finished_at' | 'result'
>;
export type JobPatch = Partial<
  Pick<
    JobRow,
    | 'state'
    | 'updated_at'
    | 'progress_at'
    | 'finish_at'
    | 'cancel_requested_at'
    | 'cancel_effective_at'
    | 'next_step_at'
    | 'result'
    | 'error'
    | 'finished_at'
    | 'results_fetched'
  >
>;

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
    this.dueStmt = db.prepare<[number], RawDueRow>(
      `SELECT seq, job_id, tenant, kind, state, client_ref, trace_id, webhook_url, behavior, created_at, updated_at, running_at, progress_at,
        finish_at, cancel_requested_at, cancel_effective_at, next_step_at, finished_at, result, error
        FROM jobs WHERE next_step_at IS NOT NULL AND next_step_at <= ? ORDER BY next_step_at, seq`,
    );
    this.stepStmt = db.prepare<unknown[]>(
      `UPDATE jobs SET state = ?, updated_at = ?, progress_at = ?, finish_at = ?, cancel_effective_at = ?, next_step_at = ?,
        finished_at = ?, result = COALESCE(?, result) WHERE seq = ?`,
    );
    this.nextDueStmt = db.prepare<[], { at: number | null }>('SELECT MIN(next_step_at) AS at FROM jobs WHERE next_step_at IS NOT NULL');
    this.allStmt = db.prepare<[], RawRow>('SELECT * FROM jobs ORDER BY seq');
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
    return this.dueStmt.all(now).map((r) => ({
      ...r,
      behavior: parseBehavior(r.behavior),
      result: r.result === null ? null : JSON.parse(r.result),
      error: r.error === null ? null : JSON.parse(r.error),
    }));
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
}
