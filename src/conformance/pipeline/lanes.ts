import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How a suite runs one of its scenarios against the client, whatever carries it out (a process over loopback or an
 * in-process client on a virtual clock): the same interface for job and task scenarios.
 */
export interface ScenarioDriver<S, R> {
  readonly kind: 'process' | 'in-process';
  run(scenario: S): Promise<R>;
}

/**
 * Run items on `lanes` at once in the given order, reporting each as it ends; results come back in the items' order.
 */
export async function runInLanes<S, R>(
  items: readonly S[],
  driver: ScenarioDriver<S, R>,
  opts: {
    lanes: number;
    order?: number[];
    /** Lane k takes its first item k × staggerMs after lane 0, so the lanes' first client starts do not all coincide. */
    staggerMs?: number;
    onStart?: (s: S, i: number) => void;
    onResult?: (r: R, done: number, i: number) => void;
  },
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const order = opts.order ?? items.map((_, i) => i);
  let next = 0;
  let done = 0;
  const lanes = Math.max(1, Math.min(opts.lanes, items.length));
  await Promise.all(
    Array.from({ length: lanes }, async (_, k) => {
      if (opts.staggerMs && k > 0) await sleep(k * opts.staggerMs);
      while (next < items.length) {
        const i = order[next++]!;
        opts.onStart?.(items[i]!, i);
        results[i] = await driver.run(items[i]!);
        opts.onResult?.(results[i]!, ++done, i);
      }
    }),
  );
  return results;
}
