/**
 * `--shard i/n`: a deterministic part of a certification, so CI can spread it over n runners. Position p of the
 * catalog (and the p-th random schedule of the seeded sequence) belongs to shard (p mod n) + 1: round-robin, so
 * each shard gets a similar mix, and the union of the n shards is exactly the unsharded run.
 */
export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > 1000 || index < 1 || index > count)
    throw new Error(`--shard expects i/n with 1 ≤ i ≤ n ≤ 1000 (e.g. 1/4), got '${text}'`);
  return { index, count };
}

export function inShard(position: number, shard: Shard | undefined): boolean {
  return !shard || position % shard.count === shard.index - 1;
}

/** The items of this shard with their positions in the whole list. */
export function shardItems<T>(list: readonly T[], shard: Shard | undefined): Array<{ item: T; position: number }> {
  return list.map((item, position) => ({ item, position })).filter((x) => inShard(x.position, shard));
}
