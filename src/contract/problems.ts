import { z } from 'zod';

/** The RFC 9457 problem of provider-api.md: every error answer of the native and tasks APIs, with a stable `code`. */
export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string(),
    request_id: z.string(),
    /** Per-field reasons of a 400/422 answer. */
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
    /** The job, on answers about one (a cancel of a final job, results of a job not yet succeeded). */
    job: z.unknown().optional(),
  })
  .passthrough();
export type Problem = z.infer<typeof ProblemSchema>;

export const PROBLEM_TYPE_BASE = 'https://jobproof.dev/problems/';
