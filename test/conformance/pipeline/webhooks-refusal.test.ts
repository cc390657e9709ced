import { describe, expect, it } from 'vitest';
import { webhooksRefusal } from '../../../src/conformance/pipeline/index.js';

/** Which clients may be certified as listening for webhooks (`--webhooks`): one rule for dialects and profiles. */
describe('webhooksRefusal', () => {
  it('takes the native API and OpenAI Batch (its per-project endpoint), refuses Anthropic with the reason', () => {
    expect(webhooksRefusal({ dialect: 'native' })).toBeNull();
    expect(webhooksRefusal({ dialect: 'openai' })).toBeNull();
    expect(webhooksRefusal({ dialect: 'anthropic' })).toMatch(/Anthropic Message Batches API sends no webhooks/);
  });

  it('takes a profile that declares webhooks and refuses one that does not, naming it', () => {
    const webhooks = {
      url_field: 'callback_url',
      events: { 'job.succeeded': 'done' },
      payload: { kind: 'done' },
      signing: 'standard',
    };
    expect(webhooksRefusal({ profile: { name: 'reports', webhooks } as never })).toBeNull();
    expect(webhooksRefusal({ profile: { name: 'google-lro' } })).toMatch(/profile google-lro declares no webhooks/);
  });
});
