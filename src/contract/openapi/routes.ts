import type { z } from 'zod';
import { BehaviorConfigSchema } from '../behavior.js';
import {
  ClockAnswerSchema,
  ClockBodySchema,
  ControlDialectBatchesSchema,
  ControlJobsSchema,
  ControlTasksSchema,
  OpenaiWebhookBodySchema,
  OpenaiWebhookUrlsSchema,
  JournalPageSchema,
  JournalQuerySchema,
  PrincipalsAnswerSchema,
  PutObjectAnswerSchema,
  ResetAnswerSchema,
  ScenarioBodySchema,
} from '../control.js';
import { FaultPlanSchema } from '../faults.js';
import {
  CancelBodySchema,
  CreateAcceptedSchema,
  CreateJobBodySchema,
  FindJobsQuerySchema,
  JobListSchema,
  JobSchema,
  ResultItemSchema,
} from '../jobs.js';
import {
  ApplyBodySchema,
  CreateTaskBodySchema,
  ObjectViewSchema,
  PutObjectBodySchema,
  PutPrincipalsBodySchema,
  ReviewBodySchema,
  TaskAuditSchema,
  TaskBehaviorSchema,
  TaskViewSchema,
} from '../tasks.js';

/**
 * Every HTTP route of the native jobs API, the tasks API and the control API, described by the same zod schemas the
 * provider validates with and the clients parse with. `document.ts` turns this table into OpenAPI 3.1; a test holds
 * the table to the routes the provider's app really serves.
 */
export type Api = 'jobs' | 'tasks' | 'control' | 'meta';

export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  headers?: Array<'Retry-After' | 'Location' | 'Idempotent-Replayed' | 'Content-Digest'>;
}

export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI form: `/v1/jobs/{job_id}`. */
  path: string;
  operationId: string;
  summary: string;
  api: Api;
  /** `Idempotency-Key` on this route: required, optional, or not read. */
  idempotencyKey?: 'required' | 'optional';
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  answers: Record<number, Answer>;
  /** Problem answers (RFC 9457) this route gives besides the common 400/401/403/429/5xx. */
  problems?: Record<number, string>;
}

const PROBLEMS_REPLAY = {
  409: 'idempotency_request_in_progress (with Retry-After)',
  422: 'idempotency_key_reused: the key was used with another body',
};

export const ROUTES: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/jobs',
    operationId: 'createJob',
    summary: 'Create a job (idempotent by Idempotency-Key)',
    api: 'jobs',
    idempotencyKey: 'required',
    body: { schema: CreateJobBodySchema, required: true },
    answers: {
      202: {
        description: 'Accepted (or a replay of the first answer)',
        schema: CreateAcceptedSchema,
        headers: ['Location', 'Idempotent-Replayed'],
      },
      200: { description: 'A sync job, finished: the whole Job', schema: JobSchema, headers: ['Idempotent-Replayed'] },
    },
    problems: PROBLEMS_REPLAY,
  },
  {
    method: 'get',
    path: '/v1/jobs',
    operationId: 'findJobs',
    summary: 'Find jobs by client_ref or idempotency_key, newest first',
    api: 'jobs',
    query: FindJobsQuerySchema,
    answers: { 200: { description: 'A page of jobs', schema: JobListSchema } },
  },
  {
    method: 'get',
    path: '/v1/jobs/{job_id}',
    operationId: 'getJob',
    summary: 'Read a job',
    api: 'jobs',
    answers: { 200: { description: 'The job; Retry-After while it is not final', schema: JobSchema, headers: ['Retry-After'] } },
    problems: { 404: 'job_not_found' },
  },
  {
    method: 'post',
    path: '/v1/jobs/{job_id}/cancel',
    operationId: 'cancelJob',
    summary: 'Ask to cancel a job',
    api: 'jobs',
    idempotencyKey: 'optional',
    body: { schema: CancelBodySchema, required: false },
    answers: { 202: { description: 'The job, cancelling', schema: JobSchema, headers: ['Retry-After'] } },
    problems: { 404: 'job_not_found', 409: 'job_terminal, with `job`' },
  },
  {
    method: 'get',
    path: '/v1/jobs/{job_id}/results',
    operationId: 'getJobResults',
    summary: 'Fetch the results of a succeeded job',
    api: 'jobs',
    answers: {
      200: {
        description: 'One result item a line',
        schema: ResultItemSchema,
        contentType: 'application/x-ndjson',
        headers: ['Content-Digest'],
      },
    },
    problems: { 404: 'job_not_found', 409: 'job_not_succeeded, with `job`', 410: 'results_gone' },
  },
  {
    method: 'post',
    path: '/v1/tasks',
    operationId: 'createTask',
    summary: 'Create an agent task (idempotent by Idempotency-Key)',
    api: 'tasks',
    idempotencyKey: 'required',
    body: { schema: CreateTaskBodySchema, required: true },
    answers: {
      202: {
        description: 'The task, queued (or a replay of the first answer)',
        schema: TaskViewSchema,
        headers: ['Location', 'Idempotent-Replayed'],
      },
    },
    problems: { ...PROBLEMS_REPLAY, 404: 'object_not_found' },
  },
  {
    method: 'get',
    path: '/v1/tasks/{task_id}',
    operationId: 'getTask',
    summary: 'Read a task',
    api: 'tasks',
    answers: { 200: { description: 'The task; Retry-After while it is not final', schema: TaskViewSchema, headers: ['Retry-After'] } },
    problems: { 404: 'task_not_found' },
  },
  {
    method: 'get',
    path: '/v1/tasks/{task_id}/audit',
    operationId: 'getTaskAudit',
    summary: "Read a task's audit trail",
    api: 'tasks',
    answers: { 200: { description: 'Audit events in order', schema: TaskAuditSchema } },
    problems: { 404: 'task_not_found' },
  },
  {
    method: 'post',
    path: '/v1/tasks/{task_id}/review',
    operationId: 'reviewTask',
    summary: 'Approve, reject or revoke one proposal version (reviewers)',
    api: 'tasks',
    body: { schema: ReviewBodySchema, required: true },
    answers: { 200: { description: 'The task after the review', schema: TaskViewSchema } },
    problems: { 404: 'task_not_found', 409: 'stale proposal, wrong state or self-review' },
  },
  {
    method: 'post',
    path: '/v1/tasks/{task_id}/apply',
    operationId: 'applyTask',
    summary: 'Apply an approved proposal (idempotent by Idempotency-Key)',
    api: 'tasks',
    idempotencyKey: 'required',
    body: { schema: ApplyBodySchema, required: false },
    answers: { 200: { description: 'The task, applied (or a replay)', schema: TaskViewSchema, headers: ['Idempotent-Replayed'] } },
    problems: { ...PROBLEMS_REPLAY, 404: 'task_not_found' },
  },
  {
    method: 'get',
    path: '/v1/objects/{object_ref}',
    operationId: 'getObject',
    summary: 'Read an object tasks propose to change',
    api: 'tasks',
    answers: { 200: { description: 'The object at its current version', schema: ObjectViewSchema } },
    problems: { 404: 'object_not_found' },
  },
  {
    method: 'post',
    path: '/_control/reset',
    operationId: 'controlReset',
    summary: 'Forget every job, key, journal entry, task and fault',
    api: 'control',
    answers: { 200: { description: 'Reset', schema: ResetAnswerSchema } },
  },
  {
    method: 'get',
    path: '/_control/faults',
    operationId: 'controlGetFaults',
    summary: 'The installed fault plan, with counts',
    api: 'control',
    answers: { 200: { description: 'The fault plan' } },
  },
  {
    method: 'put',
    path: '/_control/faults',
    operationId: 'controlPutFaults',
    summary: 'Install a fault plan',
    api: 'control',
    body: { schema: FaultPlanSchema, required: true },
    answers: { 200: { description: 'The installed plan' } },
  },
  {
    method: 'delete',
    path: '/_control/faults',
    operationId: 'controlClearFaults',
    summary: 'Remove every fault',
    api: 'control',
    answers: { 200: { description: 'The empty plan' } },
  },
  {
    method: 'get',
    path: '/_control/behavior',
    operationId: 'controlGetBehavior',
    summary: 'How new jobs behave',
    api: 'control',
    answers: { 200: { description: 'The behaviour configuration' } },
  },
  {
    method: 'put',
    path: '/_control/behavior',
    operationId: 'controlPutBehavior',
    summary: 'Set how new jobs behave',
    api: 'control',
    body: { schema: BehaviorConfigSchema, required: true },
    answers: { 200: { description: 'The behaviour configuration' } },
  },
  {
    method: 'get',
    path: '/_control/journal',
    operationId: 'controlJournal',
    summary: 'The journal: ground truth of what happened',
    api: 'control',
    query: JournalQuerySchema,
    answers: { 200: { description: 'A page of journal entries', schema: JournalPageSchema } },
  },
  {
    method: 'get',
    path: '/_control/jobs',
    operationId: 'controlJobs',
    summary: 'Every job, every tenant',
    api: 'control',
    answers: { 200: { description: 'All jobs', schema: ControlJobsSchema } },
  },
  {
    method: 'post',
    path: '/_control/clock',
    operationId: 'controlClock',
    summary: 'Advance the virtual clock',
    api: 'control',
    body: { schema: ClockBodySchema, required: true },
    answers: { 200: { description: 'The new time', schema: ClockAnswerSchema } },
    problems: { 409: 'clock_not_virtual' },
  },
  {
    method: 'put',
    path: '/_control/scenario',
    operationId: 'controlScenario',
    summary: "Switch to a named scenario's behaviour and faults (`serve --scenario`)",
    api: 'control',
    body: { schema: ScenarioBodySchema, required: true },
    answers: { 200: { description: 'The scenario now in force' } },
    problems: { 404: 'scenario_not_found' },
  },
  {
    method: 'put',
    path: '/_control/objects/{object_ref}',
    operationId: 'controlPutObject',
    summary: 'Create or change an object (open tasks on it are redrafted)',
    api: 'control',
    body: { schema: PutObjectBodySchema, required: true },
    answers: { 200: { description: 'The object as stored', schema: PutObjectAnswerSchema } },
  },
  {
    method: 'get',
    path: '/_control/principals',
    operationId: 'controlGetPrincipals',
    summary: 'The token table',
    api: 'control',
    answers: { 200: { description: 'Tokens and their principals', schema: PrincipalsAnswerSchema } },
  },
  {
    method: 'put',
    path: '/_control/principals',
    operationId: 'controlPutPrincipals',
    summary: 'Add, change or remove tokens',
    api: 'control',
    body: { schema: PutPrincipalsBodySchema, required: true },
    answers: { 200: { description: 'The token table', schema: PrincipalsAnswerSchema } },
  },
  {
    method: 'get',
    path: '/_control/task-behavior',
    operationId: 'controlGetTaskBehavior',
    summary: 'How new tasks behave',
    api: 'control',
    answers: { 200: { description: 'Task behaviour', schema: TaskBehaviorSchema } },
  },
  {
    method: 'put',
    path: '/_control/task-behavior',
    operationId: 'controlPutTaskBehavior',
    summary: 'Set how new tasks behave',
    api: 'control',
    body: { schema: TaskBehaviorSchema, required: true },
    answers: { 200: { description: 'Task behaviour', schema: TaskBehaviorSchema } },
  },
  {
    method: 'get',
    path: '/_control/tasks',
    operationId: 'controlTasks',
    summary: 'Every task, every tenant',
    api: 'control',
    answers: { 200: { description: 'All tasks', schema: ControlTasksSchema } },
  },
  {
    method: 'get',
    path: '/_control/dialects/batches',
    operationId: 'controlDialectBatches',
    summary: "Every dialect batch, its view, and each request's outcome by custom_id",
    api: 'control',
    answers: { 200: { description: 'All dialect batches', schema: ControlDialectBatchesSchema } },
  },
  {
    method: 'get',
    path: '/_control/dialects/openai/webhook',
    operationId: 'controlGetOpenaiWebhooks',
    summary: "Where the OpenAI dialect sends each tenant's webhooks",
    api: 'control',
    answers: { 200: { description: 'Webhook URL per tenant', schema: OpenaiWebhookUrlsSchema } },
  },
  {
    method: 'put',
    path: '/_control/dialects/openai/webhook',
    operationId: 'controlPutOpenaiWebhook',
    summary: "Set or remove a tenant's OpenAI-dialect webhook URL",
    api: 'control',
    body: { schema: OpenaiWebhookBodySchema, required: true },
    answers: { 200: { description: 'Webhook URL per tenant', schema: OpenaiWebhookUrlsSchema } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This document',
    api: 'meta',
    answers: { 200: { description: 'OpenAPI 3.1' } },
  },
];

/** Component names for schemas that appear in more than one place, so generated clients get one type each. */
export const NAMED_SCHEMAS: ReadonlyArray<[string, z.ZodType]> = [
  ['Job', JobSchema],
  ['TaskView', TaskViewSchema],
];
