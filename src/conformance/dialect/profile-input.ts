import type { SubmitInput } from '../../contract/client-protocol.js';
import { getPath, variablesOf } from '../../contract/profile-template.js';
import type { Profile } from '../../contract/profiles.js';
import { customIdsFor } from './batch-input.js';

/**
 * The `submit` input of an operation in a profile (profiles.md, "Points of agreement"): the request body the API
 * takes, built from the profile alone, with the operation's reference — unique across operations, stable across its
 * resubmissions — where the API carries a client reference (`create.client_ref`), else inside the free-form input the
 * API echoes (Replicate's `input`), else at the body's top level. The judge links creates to operations by it when the
 * API has no idempotency key, as `custom_id` in the dialects; it asks the client for nothing jobproof-specific.
 */

/** The operation's reference: the first `custom_id` of a one-request batch, so the two linkings agree on what is unique. */
export function profileRefFor(operationId: string): string {
  return customIdsFor(operationId, 1)[0]!.replace(/-1$/, '');
}

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    cur[part] = next && typeof next === 'object' && !Array.isArray(next) ? { ...(next as Record<string, unknown>) } : {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** The request fields the view echoes (`${request.batch.model}` → `batch.model`), and whether each is shown whole. */
function echoed(p: Profile): Array<{ path: string; optional: boolean }> {
  const text = JSON.stringify(p.view);
  return variablesOf(p.view)
    .filter((v) => v.name.startsWith('request.') && v.whole)
    .map((v) => {
      const path = v.name.slice('request.'.length);
      return { path, optional: text.includes(`\${request.${path}?}`) };
    });
}

/** The key field of a body-key API is the client's to choose (a harness value there would make a naive client safe). */
function keyField(p: Profile): string | null {
  return p.idempotency.source === 'body' ? p.idempotency.name : null;
}

/** The request body for one operation: the scenario's input as the API's fields, the profile's required fields filled. */
export function profileBody(p: Profile, op: Pick<SubmitInput, 'operation_id' | 'kind' | 'input'>): Record<string, unknown> {
  const ref = profileRefFor(op.operation_id);
  const shown = echoed(p);
  // The scenario's input is the body when it already has every field the API requires (the seed's report API);
  // otherwise it is the payload of each required field (`input`), the kind goes where the API takes one, and a field
  // the view shows deeper (`batch` of `${request.batch.model}`) is an object filled below.
  const fits = p.create.required.every((f) => getPath(op.input, f) !== undefined);
  const body: Record<string, unknown> = fits ? { ...op.input } : {};
  const deeper = (f: string) => shown.some((s) => s.path.startsWith(`${f}.`));
  for (const f of p.create.required) {
    if (getPath(body, f) !== undefined) continue;
    if (f === p.create.kind) setPath(body, f, op.kind);
    else setPath(body, f, deeper(f) ? {} : { ...op.input });
  }
  // Fields the view shows of the request (and that need not be there) get a value, so every answer reads as in the API.
  for (const s of shown) {
    if (s.optional || s.path === keyField(p) || getPath(body, s.path) !== undefined) continue;
    const parent = s.path.split('.').slice(0, -1).join('.');
    if (parent === '' || getPath(body, parent) !== undefined)
      setPath(body, s.path, s.path.endsWith('model') ? `models/${op.kind}` : op.kind);
  }
  const refField = p.create.client_ref && p.create.client_ref !== keyField(p) ? p.create.client_ref : null;
  if (refField) setPath(body, refField, ref);
  else {
    const payload = shown.find((s) => s.path !== keyField(p) && typeof getPath(body, s.path) === 'object');
    if (payload) setPath(body, payload.path, { ...(getPath(body, payload.path) as Record<string, unknown>), reference: ref });
    else body.reference = ref;
  }
  return body;
}

/** The submission a client of the profile gets: the operation, its input replaced by the request body the API takes. */
export function profileSubmission(p: Profile, op: SubmitInput): SubmitInput {
  return { ...op, input: profileBody(p, op) };
}

/** Whether a request body (as the provider kept it) carries the operation's reference anywhere. */
export function carriesRef(body: unknown, ref: string, depth = 0): boolean {
  if (typeof body === 'string') return body === ref || body.endsWith(` ${ref}`);
  if (depth > 6 || body === null || typeof body !== 'object') return false;
  return Object.values(body as Record<string, unknown>).some((v) => carriesRef(v, ref, depth + 1));
}

/** A profile under certification: the profile, and where a client reads it (a built-in name, else the file's path). */
export interface ProfileTarget {
  profile: Profile;
  /** JOBPROOF_DIALECT of the client processes. */
  dialect: string;
}

/** The profile's facts the judge needs (RunEvidence.profile). */
export function profileFacts(p: Profile): { name: string; keyed: boolean; inline_results: boolean } {
  return {
    name: p.name,
    keyed: p.idempotency.source === 'header' || p.idempotency.source === 'body',
    inline_results: p.results.mode === 'inline',
  };
}
