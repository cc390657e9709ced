import type { RequestEntry } from '../../contract/journal.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { OperationRecord } from '../../contract/client-protocol.js';
import type { CancelIntent, RunEvidence, Submission } from './evidence.js';
import { normKey } from './helpers.js';

/**
 * An operation and everything the journal holds about it (see docs/decisions/001-checker-linking.md):
 * creates by key, client_ref or trace id; the jobs those creates created; every request naming one of its jobs;
 * and any request carrying its trace id (lists).
 */
export interface OperationView {
  id: string;
  /** The first accepted submission: the operation's request. */
  submission?: Submission;
  /** Later submissions of the same id with a different request (the client must have refused them). */
  changedSubmissions: Submission[];
  /** The last `show` snapshot, and all of them oldest first. */
  record?: OperationRecord;
  snapshots: OperationRecord[];
  key: string | null;
  trace: string | null;
  creates: RequestEntry[];
  /** Jobs this operation caused: job ids of creates with effect `created` (I1 counts these). */
  jobIds: string[];
  /**
   * Job ids the provider told the client although its key never created them (injected contract violation): the id a
   * replay served, and a job a find by its key listed as a foreign one.
   */
  foreignJobIds: string[];
  /** Every request linked to the operation, creates included, in journal order. */
  requests: RequestEntry[];
  cancelIntents: CancelIntent[];
}

/** The request of a submission without its operation id: what "the same request" compares. */
export function requestBody(s: Submission): string {
  const { operation_id: _ignored, ...rest } = s.request;
  return canonicalJson(rest);
}

/** Which creates (and, in a dialect, which other requests such as OpenAI uploads) belong to an operation. */
export interface OperationMatcher {
  creates(id: string, key: string | null, trace: string | null, submission: Submission | undefined): RequestEntry[];
  /** Requests linked besides creates, their jobs' requests and trace-id matches. */
  extra?(id: string, submission: Submission | undefined): RequestEntry[];
}

export function linkOperations(evidence: RunEvidence, requests: readonly RequestEntry[]): OperationView[] {
  return linkOperationsBy(evidence, requests, {
    creates: (id, key, trace) =>
      requests.filter(
        (r) =>
          r.route === 'create' &&
          ((key !== null && normKey(r.idempotency_key) === key) || r.client_ref === id || (trace !== null && r.trace_id === trace)),
      ),
  });
}

export function linkOperationsBy(evidence: RunEvidence, requests: readonly RequestEntry[], match: OperationMatcher): OperationView[] {
  const ids = [...new Set([...evidence.submissions.map((s) => s.operation_id), ...evidence.records.map((r) => r.operation_id)])];
  return ids.map((id) => {
    const subs = evidence.submissions.filter((s) => s.operation_id === id);
    const accepted = subs.filter((s) => s.exit_code === undefined || s.exit_code === 0);
    const submission = accepted[0] ?? subs[0];
    const snapshots = evidence.records.filter((r) => r.operation_id === id);
    const record = snapshots.at(-1);
    const key = normKey(record?.idempotency_key);
    const trace = record?.trace_id ?? null;
    const creates = match.creates(id, key, trace, submission);
    const jobIds = unique(creates.filter((c) => c.effect === 'created').map((c) => c.job_id));
    const foreignFinds = key === null ? [] : requests.filter((r) => r.route === 'list' && normKey(r.idempotency_key) === key);
    const foreignJobIds = unique([...creates, ...foreignFinds].filter((c) => c.effect === 'foreign_replay').map((c) => c.job_id));
    const known = new Set([...jobIds, ...foreignJobIds]);
    const createSeqs = new Set([...creates, ...(match.extra?.(id, submission) ?? [])].map((c) => c.seq));
    const linked = requests.filter(
      (r) =>
        createSeqs.has(r.seq) ||
        (r.route !== 'create' && r.job_id !== null && known.has(r.job_id)) ||
        (trace !== null && trace !== '' && r.trace_id === trace),
    );
    return {
      id,
      submission,
      changedSubmissions: subs.filter((s) => submission && s !== submission && requestBody(s) !== requestBody(submission)),
      record,
      snapshots,
      key,
      trace,
      creates,
      jobIds,
      foreignJobIds,
      requests: linked,
      cancelIntents: evidence.cancels.filter((c) => c.operation_id === id),
    };
  });
}

function unique(ids: (string | null)[]): string[] {
  return [...new Set(ids.filter((x): x is string => x !== null))];
}
