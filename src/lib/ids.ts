import { randomBytes } from 'node:crypto';

/**
 * Opaque prefixed ids. A millisecond timestamp prefix keeps them roughly sortable for people reading a journal;
 * 80 random bits keep them unguessable across tenants.
 */
export type IdSource = (prefix: string) => string;

export const randomId: IdSource = (prefix) =>
  `${prefix}_${Date.now().toString(36)}${randomBytes(10).toString('hex')}`;

/** Deterministic ids for replayable in-process runs: same seed, same sequence. */
export function seededIds(seed = 1): IdSource {
  let state = seed >>> 0 || 1;
  const counters = new Map<string, number>();
  return (prefix) => {
    const n = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, n);
    // xorshift32: cheap, reproducible, good enough to make ids look unrelated.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return `${prefix}_${n.toString(36).padStart(4, '0')}${state.toString(16).padStart(8, '0')}`;
  };
}
