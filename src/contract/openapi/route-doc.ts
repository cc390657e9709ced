import type { z } from 'zod';

/** Which API a route belongs to (the document's tags). */
export type Api = 'jobs' | 'tasks' | 'control' | 'meta';

export interface Answer {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  headers?: Array<'Retry-After' | 'Location' | 'Idempotent-Replayed' | 'Content-Digest'>;
}

/** What the OpenAPI document says of one route. */
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

export const PROBLEMS_REPLAY = {
  409: 'idempotency_request_in_progress (with Retry-After)',
  422: 'idempotency_key_reused: the key was used with another body',
};
