import {
  CancelBodySchema,
  CreateAcceptedSchema,
  CreateJobBodySchema,
  FindJobsQuerySchema,
  JobListSchema,
  JobSchema,
  ResultItemSchema,
} from '../jobs.js';
import { PROBLEMS_REPLAY, type RouteDoc } from './route-doc.js';

/** The native jobs API (provider-api.md). */
export const JOB_ROUTES: readonly RouteDoc[] = [
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
];
