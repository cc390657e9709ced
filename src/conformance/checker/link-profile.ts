import type { RequestEntry } from '../../contract/journal.js';
import { carriesRef, profileRefFor } from '../dialect/profile-input.js';
import type { RunEvidence } from './evidence.js';
import { normKey } from './helpers.js';
import { linkOperationsBy, type OperationView } from './link.js';

/**
 * Linking in an API profile (profiles.md, "Clients under test"): a create belongs to an operation by the profile's
 * idempotency key when it has one (the key the operation's record names), else by the client reference (the journal
 * keeps the create body's `create.client_ref`: the reference the harness wrote into the operation's input, or the
 * operation id), else by what the harness put in the input — the operation's reference, found in the request body
 * of the job a create made (the provider keeps it with the job). A create that made no job and carries neither key
 * nor reference cannot be told apart, as in the API itself. The client's own trace id links as in the native API.
 */
export function linkProfileOperations(evidence: RunEvidence, requests: readonly RequestEntry[]): OperationView[] {
  const requestOf = new Map(evidence.jobs.map((j) => [j.job_id, (j as { input?: { request?: unknown } }).input?.request] as const));
  return linkOperationsBy(evidence, requests, {
    creates: (id, key, trace) => {
      const ref = profileRefFor(id);
      return requests.filter(
        (r) =>
          r.route === 'create' &&
          ((key !== null && normKey(r.idempotency_key) === key) ||
            r.client_ref === ref ||
            r.client_ref === id ||
            (r.job_id !== null && r.effect === 'created' && carriesRef(requestOf.get(r.job_id), ref)) ||
            (trace !== null && trace !== '' && r.trace_id === trace)),
      );
    },
  });
}
