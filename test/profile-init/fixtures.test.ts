/**
 * What the drafter reads from the two public documents (test/fixtures/openapi/*), field by field: the facts the
 * documents state are written as they state them; the rest is marked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { whole } from '../../src/contract/profile-template.js';
import { draftProfile } from '../../src/profile-init/draft.js';

const draft = (name: string) => {
  const d = draftProfile(readFileSync(join(import.meta.dirname, '../fixtures/openapi', name, 'openapi.yaml'), 'utf8'));
  if (!d.ok) throw new Error(d.message);
  return d;
};

describe('profile init on public OpenAPI documents', () => {
  it('Mistral batch jobs: every state word known, unix seconds, progress as a pair, page/page_size, …/cancel', () => {
    const { profile: p, guesses } = draft('mistral-batch');
    expect(p.state.values).toEqual({
      QUEUED: 'queued',
      RUNNING: 'running',
      SUCCESS: 'succeeded',
      FAILED: 'failed',
      TIMEOUT_EXCEEDED: 'expired',
      CANCELLATION_REQUESTED: 'cancelling',
      CANCELLED: 'cancelled',
    });
    expect(p.state.serve_as).toEqual({});
    expect(guesses.some((g) => g.path.startsWith('state.values.'))).toBe(false);
    expect(p.times).toBe('unix_s');
    expect(p.view).toMatchObject({
      id: whole('id'),
      status: whole('state'),
      created_at: whole('created_at'),
      completed_at: whole('finished_at?'),
      total_requests: whole('progress.total'),
      completed_requests: whole('progress.completed'),
      model: whole('request.model?'),
      outputs: whole('result.items?'),
    });
    expect(p.create).toMatchObject({
      route: { method: 'POST', path: '/v1/batch/jobs' },
      status: 200,
      body: whole('view'),
      required: ['endpoint'],
    });
    expect(p.cancel).toMatchObject({ route: { method: 'POST', path: '/v1/batch/jobs/{id}/cancel' }, status: 200, body: whole('view') });
    expect(p.find).toMatchObject({
      route: { path: '/v1/batch/jobs' },
      page: { size_param: 'page_size', token_param: 'page' },
      body: { data: whole('items') },
    });
    expect(p.idempotency).toEqual({ source: 'none' });
    expect(p.auth).toEqual({ type: 'bearer' });
  });

  it('AssemblyAI transcripts: four states and serve_as for the rest, the {error} envelope, next_url paging, the webhook callback', () => {
    const { profile: p, guesses } = draft('assemblyai-transcripts');
    expect(p.state).toEqual({
      values: { queued: 'queued', processing: 'running', completed: 'succeeded', error: 'failed' },
      serve_as: { cancelling: 'processing', cancelled: 'error', expired: 'error' },
    });
    expect(p.errors).toEqual({ content_type: 'application/json', body: { error: whole('message') } });
    expect(p.find?.body).toMatchObject({ transcripts: whole('items'), page_details: { next_url: whole('next_page_url') } });
    expect(p.find?.page).toMatchObject({ size_param: 'limit' });
    expect(p.cancel).toMatchObject({ route: { method: 'DELETE', path: '/v2/transcript/{id}' } });
    expect(p.webhooks).toEqual({
      url_field: 'webhook_url',
      events: { 'job.succeeded': 'completed', 'job.failed': 'error', 'job.cancelled': 'error', 'job.expired': 'error' },
      payload: { transcript_id: whole('id'), status: whole('event') },
      signing: 'none',
    });
    expect(p.auth).toEqual({ type: 'header', name: 'Authorization' });
    expect(guesses.map((g) => g.path)).toEqual(
      expect.arrayContaining(['cancel.route', 'state.serve_as.cancelled', 'webhooks.events', 'webhooks.signing', 'find.body']),
    );
  });
});
