/**
 * Result lines are written as text (engine/results.ts) for speed; they must stay byte for byte the JSON.stringify of
 * each item, as rendered before: a digest promised by a stored job must still match the bytes served after an upgrade.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBehaviorConfig } from '../../../src/contract/behavior.js';
import { sha256Hex } from '../../../src/lib/canonical-json.js';
import { renderResults } from '../../../src/fake-provider/engine/results.js';

/** The rendering of the previous release, object by object. */
function reference(jobId: string, b: { items: number; items_failed: number; error_row: boolean }): string {
  const lines: string[] = [];
  const firstFailed = b.items - b.items_failed + 1;
  for (let i = 1; i <= b.items; i++) {
    const item_id = `item_${String(i).padStart(4, '0')}`;
    if (i >= firstFailed) {
      lines.push(
        JSON.stringify({ item_id, status: 'failed', error: { code: 'item_failed', message: `item ${i} could not be processed` } }),
      );
    } else {
      lines.push(
        JSON.stringify({
          item_id,
          status: 'succeeded',
          output: { job_id: jobId, index: i, value: sha256Hex(`${jobId}:${i}`).slice(0, 16) },
        }),
      );
    }
  }
  if (b.error_row)
    lines.push(JSON.stringify({ status: 'error', error: { code: 'internal_error', message: 'worker crashed while writing results' } }));
  return lines.map((l) => `${l}\n`).join('');
}

describe('renderResults', () => {
  it('writes the bytes of the object-by-object rendering, for any job id and item counts', () => {
    const jobId = fc.oneof(fc.constantFrom('job_mx51tg7ec6cd2feb18242eb3e4a9', 'batch_abc', 'msgbatch_01'), fc.string({ maxLength: 20 }));
    const counts = fc.integer({ min: 0, max: 3_000 }).chain((items) => fc.tuple(fc.constant(items), fc.integer({ min: 0, max: items })));
    fc.assert(
      fc.property(jobId, counts, fc.boolean(), (id, [items, failed], errorRow) => {
        const b = { ...parseBehaviorConfig({}).default, items, items_failed: failed, error_row: errorRow };
        expect(renderResults(id, b)).toBe(reference(id, b));
      }),
      { numRuns: 200 },
    );
  });
});
