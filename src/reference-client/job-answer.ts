import { JobSchema, type Job } from '../contract/jobs.js';
import type { Answer, CallOutcome } from './http.js';
import { problemCode } from './http.js';
import type { EvidenceKind } from './state-machine.js';
import type { Move } from './op-step.js';
import type { OperationPatch } from './types.js';

/** Reading the provider's answers into facts the steps act on. Nothing here talks to the network or the store. */
export function jobOf(value: unknown): Job | null {
  const parsed = JobSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The Job carried by a problem answer (409 job_terminal / job_not_succeeded), if any. */
export function problemJob(o: CallOutcome): Job | null {
  if (o.kind !== 'answer' || !o.json || typeof o.json !== 'object') return null;
  return jobOf((o.json as { job?: unknown }).job);
}

/** 409/429/503 with Retry-After: the request did not run, and the provider told us when to come back. */
export function isBackOff(o: CallOutcome): o is Answer {
  return o.kind === 'answer' && (o.status === 429 || o.status === 503 || o.status === 409) && o.retryAfterMs !== null;
}

/** What the record learns from any Job we read: remote state and progress (kept, never trusted). */
export function remoteFacts(job: Job): OperationPatch {
  return { remote_state: job.state, remote_progress: job.progress };
}

/**
 * Where a terminal job sends the operation. Returns null for a job that is not terminal. A succeeded job without a
 * result description is a broken contract: there is nothing to verify the results against.
 */
export function terminalMove(
  job: Job,
  evidence: EvidenceKind,
  call: CallOutcome,
  cause: string,
): { move: Move; patch: OperationPatch } | null {
  const base = { evidence, call, jobState: job.state, jobId: job.job_id };
  switch (job.state) {
    case 'succeeded':
      if (!job.result) {
        return {
          move: { ...base, evidence: 'contract_violation', to: 'needs_attention', cause: 'succeeded job without result' },
          patch: { reason: 'succeeded job without result' },
        };
      }
      return {
        move: { ...base, to: 'result_collecting', cause },
        patch: {
          expected_result: {
            url: job.result.url,
            sha256: job.result.sha256,
            items_total: job.result.items_total,
            items_failed: job.result.items_failed,
          },
          attempt: 0,
        },
      };
    case 'failed':
    case 'expired': {
      const reason =
        job.state === 'expired'
          ? 'job expired'
          : `job failed: ${job.error?.code ?? 'unknown'}${job.error?.message ? ` (${job.error.message})` : ''}`;
      return { move: { ...base, to: 'failed', cause, detail: reason }, patch: { reason } };
    }
    case 'cancelled':
      return { move: { ...base, to: 'cancelled', cause }, patch: { reason: 'provider reported the job cancelled' } };
    default:
      return null;
  }
}

export function describe(o: CallOutcome): string {
  return o.kind === 'answer' ? `${o.status}${problemCode(o) ? ` ${problemCode(o)}` : ''}` : o.reason;
}
