import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { customIdsFor, customIdsOf, dialectSubmission } from '../../../src/conformance/dialect/batch-input.js';
import { notApplicableIn } from '../../../src/conformance/dialect/applicability.js';
import { catalog } from '../../../src/scenarios/index.js';

const op = (operation_id: string) => ({
  operation_id,
  kind: 'report',
  input: { a: 1 },
  create_deadline_ms: 1000,
  result_deadline_ms: 2000,
});

describe('batch inputs of dialect operations (spec/dialects.md)', () => {
  it('gives custom_ids unique across operations, valid for Anthropic (1-64 of [A-Za-z0-9_-]), one per request', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 200 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 30 }),
        (ids, n) => {
          const all = ids.flatMap((id) => customIdsFor(id, n));
          expect(new Set(all).size).toBe(all.length);
          for (const c of all) expect(c).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        },
      ),
    );
  });

  it('builds the OpenAI and Anthropic batch shapes, and passes native inputs through', () => {
    const o = dialectSubmission('openai', op('op_1'), 3);
    expect(o.input).toMatchObject({ endpoint: '/v1/chat/completions' });
    expect((o.input.requests as unknown[]).length).toBe(3);
    expect((o.input.requests as Array<Record<string, unknown>>)[0]).toMatchObject({
      custom_id: 'op_1-1',
      method: 'POST',
      url: '/v1/chat/completions',
    });
    const a = dialectSubmission('anthropic', op('op_1'), 2);
    expect(customIdsOf(a.input)).toEqual(['op_1-1', 'op_1-2']);
    expect((a.input.requests as Array<{ params: Record<string, unknown> }>)[0]!.params).toMatchObject({ max_tokens: 64 });
    expect(dialectSubmission('native', op('op_1'), 3)).toEqual(op('op_1'));
    // A changed input keeps the operation's custom_ids (the judge links every submission of the id) but not its bodies.
    const changed = dialectSubmission('openai', { ...op('op_1'), input: { a: 2 } }, 3);
    expect(customIdsOf(changed.input)).toEqual(customIdsOf(o.input));
    expect(changed.input).not.toEqual(o.input);
  });

  it('names the catalog scenarios a dialect cannot express, with a reason, and only those', () => {
    const na = (d: 'openai' | 'anthropic') =>
      catalog
        .filter((s) => notApplicableIn(d, s))
        .map((s) => s.name)
        .sort();
    expect(na('openai')).toEqual(['cancel-while-create-held', 'corrupt-result', 'create-in-flight', 'error-row', 'foreign-job-id']);
    expect(na('anthropic')).toEqual([
      'cancel-while-create-held',
      'corrupt-result',
      'create-in-flight',
      'dropped-webhooks',
      'duplicate-webhook',
      'error-row',
      'foreign-job-id',
      'forged-webhook',
      'out-of-order-webhooks',
    ]);
    expect(catalog.every((s) => notApplicableIn('native', s) === null)).toBe(true);
  });
});
