import { randomBytes } from 'node:crypto';

/**
 * Opaque prefixed ids. A millisecond timestamp prefix keeps them roughly sortable for people reading a journal;
 * 80 random bits keep them unguessable across tenants.
 */
export type IdSource = (prefix: string) => string;

// Random bytes drawn from the CSPRNG 4 KiB at a time: one randomBytes call per id was 5 % of a status read.
let pool = Buffer.alloc(0);
let offset = 0;
function random10Hex(): string {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += 10;
  return pool.toString('hex', offset - 10, offset);
}

export const randomId: IdSource = (prefix) => `${prefix}_${Date.now().toString(36)}${random10Hex()}`;

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
