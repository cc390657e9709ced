import { ApplyBodySchema, CreateTaskBodySchema, ObjectViewSchema, ReviewBodySchema, TaskAuditSchema, TaskViewSchema } from '../tasks.js';
import { PROBLEMS_REPLAY, type RouteDoc } from './route-doc.js';

/** The tasks API (tasks-api.md). */
export const TASK_ROUTES: readonly RouteDoc[] = [
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
];
