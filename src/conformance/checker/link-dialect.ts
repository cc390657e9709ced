import type { RequestEntry } from '../../contract/journal.js';
import { customIdsOf } from '../dialect/batch-input.js';
import type { RunEvidence, Submission } from './evidence.js';
import { linkOperationsBy, type OperationView } from './link.js';

/**
 * Linking in a wire dialect (spec/dialects.md): the real APIs carry no idempotency key and no client reference, and
 * the judge asks the client for nothing jobproof-specific. The harness gave every operation's batch `custom_id`s no
 * other operation has, and the provider journals the `custom_id`s of every create (OpenAI: read from the input file)
 * and upload, so a create belongs to the operation whose submitted batch shares a `custom_id` with it. Everything
 * else (reads, cancels, results) is linked through the batch ids those creates made, as in the native API.
 * Every submission of the operation counts (a changed resubmission keeps the operation's custom_ids).
 */
export function linkDialectOperations(evidence: RunEvidence, requests: readonly RequestEntry[]): OperationView[] {
  const idsOf = new Map<string, Set<string>>();
  for (const s of evidence.submissions) {
    const set = idsOf.get(s.operation_id) ?? new Set<string>();
    for (const c of customIdsOf(s.request.input)) set.add(c);
    idsOf.set(s.operation_id, set);
  }
  const carries = (r: RequestEntry, id: string) => {
    const mine = idsOf.get(id);
    return !!mine && (r.custom_ids ?? []).some((c) => mine.has(c));
  };
  return linkOperationsBy(evidence, requests, {
    creates: (id) => requests.filter((r) => r.route === 'create' && carries(r, id)),
    extra: (id: string, _s: Submission | undefined) => requests.filter((r) => r.route === 'upload' && carries(r, id)),
  });
}
