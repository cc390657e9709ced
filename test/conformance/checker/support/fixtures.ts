import { DEFAULT_PLAN, simulate, type OpPlan } from './well-behaved.js';
import type { Evidence } from './mutate.js';

/** Evidence of the correct client for one operation with this plan (defaults: a plain 1 s job that succeeds). */
export function run(plan: Partial<OpPlan> = {}, more: Partial<OpPlan>[] = []): Evidence {
  return structuredClone(simulate([{ ...DEFAULT_PLAN, ...plan }, ...more.map((p) => ({ ...DEFAULT_PLAN, ...p }))])) as Evidence;
}
