/** The jobs table's rows as the provider reads and writes them, and their text columns parsed (jobs-repo.ts). */
import type { Behavior } from '../../contract/behavior.js';
import type { JobResult, JobState } from '../../contract/jobs.js';

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

export type RawRow = Omit<JobRow, 'input' | 'behavior' | 'result' | 'error'> & {
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
export function parseBehavior(text: string): Behavior {
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
export function behaviorText(b: Behavior): string {
  let t = behaviorTexts.get(b);
  if (t === undefined) {
    t = JSON.stringify(b);
    behaviorTexts.set(b, t);
  }
  return t;
}

export const INSERT_COLUMNS = [
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

export function fromRaw(r: RawRow): JobRow {
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

/** The due query's SELECT list (jobs-repo.ts), in the order `dueRow` reads its values. */
export const DUE_COLUMNS =
  'seq, job_id, tenant, kind, state, client_ref, trace_id, webhook_url, behavior, created_at, updated_at, running_at, ' +
  'progress_at, finish_at, cancel_requested_at, cancel_effective_at, next_step_at, finished_at, result, error';

/**
 * A due job from its values in DUE_COLUMNS order (a raw row: better-sqlite3 builds a keyed row object at twice the
 * cost of the step, and every create's life cycle reads its job twice).
 */
export function dueRow(r: unknown[]): DueJob {
  return {
    seq: r[0] as number,
    job_id: r[1] as string,
    tenant: r[2] as string,
    kind: r[3] as string,
    state: r[4] as JobState,
    client_ref: r[5] as string | null,
    trace_id: r[6] as string | null,
    webhook_url: r[7] as string | null,
    behavior: parseBehavior(r[8] as string),
    created_at: r[9] as number,
    updated_at: r[10] as number,
    running_at: r[11] as number,
    progress_at: r[12] as number | null,
    finish_at: r[13] as number | null,
    cancel_requested_at: r[14] as number | null,
    cancel_effective_at: r[15] as number | null,
    next_step_at: r[16] as number | null,
    finished_at: r[17] as number | null,
    result: r[18] === null ? null : JSON.parse(r[18] as string),
    error: r[19] === null ? null : JSON.parse(r[19] as string),
  };
}

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
