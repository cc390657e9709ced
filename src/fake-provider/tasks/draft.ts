import { canonicalJson, sha256Hex } from '../../lib/canonical-json.js';
import type { Change, Draft, Proposal } from '../../contract/tasks.js';
import type { ObjectRow } from './model.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** The patch a task proposes: `input.changes` when it is an object, else the whole input. */
export function patchOf(input: Record<string, unknown>): Record<string, unknown> {
  return isObject(input.changes) ? input.changes : input;
}

/** SHA-256 (hex) of the canonical JSON of a proposal without its `sha256` field. */
export function proposalSha(p: Omit<Proposal, 'sha256'> | Proposal): string {
  const { sha256: _ignored, ...rest } = p as Proposal;
  return sha256Hex(canonicalJson(rest));
}

/** Deterministic draft: the same object version, input and proposal version give the same draft, byte for byte. */
export function makeDraft(obj: ObjectRow, input: Record<string, unknown>, proposalVersion: number): { draft: Draft; proposal: Proposal } {
  const patch = patchOf(input);
  const change: Change = { type: 'merge_patch', patch };
  const fields = Object.keys(patch).sort();
  const rationale = fields.length
    ? `update ${fields.join(', ')} of ${obj.object_ref} as requested, against version ${obj.version}`
    : `no field change requested for ${obj.object_ref}; the update only records a new version over ${obj.version}`;
  const body = { proposal_version: proposalVersion, object_ref: obj.object_ref, base_version: obj.version, change, rationale };
  const proposal: Proposal = { ...body, sha256: proposalSha(body) };
  const excerpt = canonicalJson(obj.data);
  const draft: Draft = {
    text: `Proposal ${proposalVersion} for ${obj.object_ref} (read at version ${obj.version}): ${rationale}. Result: ${canonicalJson(mergePatch(obj.data, patch))}`,
    sources: [{ ref: obj.object_ref, version: obj.version, excerpt: excerpt.length > 200 ? `${excerpt.slice(0, 199)}…` : excerpt }],
    confidence: 0.8,
  };
  return { draft, proposal };
}
