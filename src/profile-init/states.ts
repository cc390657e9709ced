import type { JobState } from '../contract/jobs.js';
import { type OpenApiDoc, type Shape, shapeOf } from './openapi-read.js';

/**
 * Which field of a job schema is its state, and what each documented value means on the engine. Values are matched
 * after folding case and punctuation (`NotStarted`, `not_started`, `NOT-STARTED` are one word), against the words
 * the real job APIs use; a value no list knows is mapped to `running` and marked for a person.
 */
const WORDS: Record<JobState, string[]> = {
  queued: [
    'queued',
    'pending',
    'notstarted',
    'submitted',
    'created',
    'waiting',
    'starting',
    'validating',
    'scheduled',
    'accepted',
    'new',
    'enqueued',
    'initializing',
  ],
  running: ['running', 'processing', 'inprogress', 'started', 'active', 'executing', 'finalizing', 'busy'],
  cancelling: ['cancelling', 'canceling', 'cancellationrequested', 'cancelrequested', 'cancelpending', 'stopping'],
  succeeded: ['succeeded', 'success', 'successful', 'completed', 'complete', 'done', 'finished', 'ready'],
  failed: ['failed', 'failure', 'error', 'errored'],
  cancelled: ['cancelled', 'canceled', 'stopped'],
  expired: ['expired', 'timeout', 'timedout', 'timeoutexceeded', 'deadlineexceeded'],
};
const FINAL: JobState[] = ['succeeded', 'failed', 'cancelled', 'expired'];
const fold = (v: string) =>
  v
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/^(job|batch|operation|state|status)+(?=.)/, '');

export function engineStateOf(value: string): JobState | undefined {
  const f = fold(value);
  for (const [state, words] of Object.entries(WORDS) as Array<[JobState, string[]]>) if (words.includes(f)) return state;
  return undefined;
}

export interface StateField {
  path: string;
  values: string[];
  /** Other enum fields that looked like a state too. */
  rivals: string[];
}

function candidate(shape: Shape): string[] | undefined {
  const values = (shape.enum ?? []).filter((v): v is string => typeof v === 'string');
  const known = values.map(engineStateOf).filter((s) => s !== undefined);
  return known.length >= 2 && known.some((s) => FINAL.includes(s)) ? values : undefined;
}

/** The enum property (top level or one object below) that reads most like a job state. */
export function findStateField(doc: OpenApiDoc, job: Shape): StateField | undefined {
  const found: Array<{ path: string; values: string[]; score: number }> = [];
  const visit = (shape: Shape, prefix: string, depth: number) => {
    for (const [name, node] of Object.entries(shape.properties)) {
      const s = shapeOf(doc, node);
      const values = candidate(s);
      const path = `${prefix}${name}`;
      if (values) found.push({ path, values, score: values.length + (/^(status|state)$/i.test(name) ? 10 : 0) - depth * 3 });
      else if (depth === 0 && s.types.includes('object')) visit(s, `${path}.`, depth + 1);
    }
  };
  visit(job, '', 0);
  found.sort((a, b) => b.score - a.score);
  const best = found[0];
  return best && { path: best.path, values: best.values, rivals: found.slice(1).map((f) => f.path) };
}

export interface StateMap {
  values: Record<string, JobState>;
  /** Values no word list knows (mapped to running). */
  unknown: string[];
  /** Engine states the API has no value for, and the value shown instead. */
  serveAs: Partial<Record<JobState, string>>;
}

const STAND_IN: Record<JobState, JobState[]> = {
  queued: ['running'],
  running: ['queued'],
  cancelling: ['running', 'queued'],
  succeeded: [],
  failed: ['expired', 'cancelled'],
  cancelled: ['failed', 'expired'],
  expired: ['failed', 'cancelled'],
};

export function mapStates(values: readonly string[]): StateMap {
  const out: StateMap = { values: {}, unknown: [], serveAs: {} };
  for (const v of values) {
    const s = engineStateOf(v);
    out.values[v] = s ?? 'running';
    if (!s) out.unknown.push(v);
  }
  const mapped = Object.entries(out.values);
  for (const state of Object.keys(STAND_IN) as JobState[]) {
    if (mapped.some(([, s]) => s === state)) continue;
    const stand = STAND_IN[state].map((alt) => mapped.find(([, s]) => s === alt)?.[0]).find((v) => v !== undefined);
    out.serveAs[state] = stand ?? mapped[0]![0];
  }
  return out;
}

export const isFinal = (s: JobState) => FINAL.includes(s);

/** AIP-151 operations have no state enum: a boolean `done`, and `error` once failed. */
export function hasDoneField(doc: OpenApiDoc, job: Shape): boolean {
  const done = job.properties.done;
  return done !== undefined && shapeOf(doc, done).types.includes('boolean');
}

/** The answer shows a job: a state enum, or a `done` flag. */
export const isJobShape = (doc: OpenApiDoc, job: Shape) => !!findStateField(doc, job) || hasDoneField(doc, job);

/** AIP-151's state read from `done` and `error` (google.rpc.Status code 1 = CANCELLED when the code is a number). */
export function derivedStates(numericCode: boolean): Array<{ when: Record<string, boolean | number | string>; state: JobState }> {
  return [
    { when: { done: false }, state: 'running' },
    ...(numericCode ? [{ when: { done: true, 'error.code': 1 }, state: 'cancelled' as const }] : []),
    { when: { done: true, error: '$present' }, state: 'failed' },
    { when: { done: true }, state: 'succeeded' },
  ];
}
