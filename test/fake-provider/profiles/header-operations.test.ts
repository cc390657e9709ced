/**
 * Rows of profiles.md no built-in needs, on a profile of an AWS Transcribe-like API: operations chosen by the
 * `X-Amz-Target` header on `POST /`, the job id chosen by the client (a taken name refused), the id read from the
 * body, unix-second times, the `__type` envelope, a cancel the API does not have (501), and paged JSON results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileSchema, type ProfileInput } from '../../../src/contract/profiles.js';
import { semanticProblems } from '../../../src/contract/profile-check.js';
import { whole } from '../../../src/contract/profile-template.js';
import { startDialectServer, type DialectServer } from '../dialects/helpers.js';

const target = (op: string) => ({ header: 'X-Amz-Target', value: `Transcribe.${op}` });
const input: ProfileInput = {
  profile: 1,
  name: 'transcribe',
  prefix: '/profiles/transcribe',
  auth: { type: 'bearer' },
  id: { source: 'body', field: 'TranscriptionJobName', taken: { status: 400, code: 'conflict' } },
  state: {
    values: { QUEUED: 'queued', IN_PROGRESS: 'running', COMPLETED: 'succeeded', FAILED: 'failed' },
    serve_as: { cancelling: 'IN_PROGRESS', cancelled: 'FAILED', expired: 'FAILED' },
  },
  times: 'unix_s',
  view: {
    TranscriptionJob: {
      TranscriptionJobName: whole('id'),
      TranscriptionJobStatus: whole('state'),
      CreationTime: whole('created_at'),
      CompletionTime: whole('finished_at?'),
      FailureReason: whole('error.message?'),
    },
  },
  create: {
    route: { method: 'POST', path: '/', operation: target('StartTranscriptionJob') },
    status: 200,
    body: whole('view'),
    required: ['Media'],
  },
  read: { route: { method: 'POST', path: '/', operation: target('GetTranscriptionJob'), id_field: 'TranscriptionJobName' } },
  idempotency: { source: 'client_id' },
  find: {
    route: { method: 'POST', path: '/', operation: target('ListTranscriptionJobs') },
    filters: [{ param: 'JobNameContains', in: 'body', by: 'id_contains' }],
    page: { in: 'body', size_param: 'MaxResults', token_param: 'NextToken', default_size: 5, max_size: 100 },
    body: { TranscriptionJobSummaries: whole('items'), NextToken: whole('next_page_token?') },
  },
  cancel: {
    unsupported: {
      route: { method: 'POST', path: '/', operation: target('StopTranscriptionJob'), id_field: 'TranscriptionJobName' },
      status: 501,
    },
  },
  results: {
    mode: 'paged',
    route: { method: 'POST', path: '/', operation: target('GetTranscript'), id_field: 'TranscriptionJobName' },
    format: 'json',
    page: { in: 'body', size_param: 'MaxResults', token_param: 'NextToken', default_size: 2, max_size: 100 },
    body: { Items: whole('items'), NextToken: whole('next_page_token?') },
  },
  errors: {
    content_type: 'application/x-amz-json-1.1',
    body: { __type: whole('code'), message: whole('message') },
    codes: {
      job_not_found: 'BadRequestException',
      conflict: 'ConflictException',
      invalid_request: 'BadRequestException',
      not_implemented: 'UnsupportedOperation',
    },
    statuses: { job_not_found: 400 },
  },
};
const profile = ProfileSchema.parse(input);

let s: DialectServer;
beforeAll(async () => {
  s = await startDialectServer({ profiles: [profile], behavior: { default: { duration_ms: 1000, items: 3 } } });
});
afterAll(() => s.stop());

const aws = (op: string, body: unknown) =>
  s.call('POST', '/profiles/transcribe/', { headers: { 'x-amz-target': `Transcribe.${op}` }, body });

describe('a header-operation profile', () => {
  it('passes the checker', () => {
    expect(semanticProblems(profile)).toEqual([]);
  });

  it('starts a job under the client-chosen name and refuses the name again', async () => {
    const r = await aws('StartTranscriptionJob', { TranscriptionJobName: 'call-1', Media: { MediaFileUri: 's3://b/k' } });
    expect(r.status).toBe(200);
    expect(r.json.TranscriptionJob).toMatchObject({ TranscriptionJobName: 'call-1', TranscriptionJobStatus: 'QUEUED' });
    expect(typeof r.json.TranscriptionJob.CreationTime).toBe('number');
    const again = await aws('StartTranscriptionJob', { TranscriptionJobName: 'call-1', Media: { MediaFileUri: 's3://b/k' } });
    expect(again.status).toBe(400);
    expect(again.json.__type).toBe('ConflictException');
    expect(s.provider.journal.all().filter((e) => e.type === 'request' && e.idempotency_key === 'call-1')).toHaveLength(2);
  });

  it('reads it by the name in the body, refuses Stop (501), pages its results', async () => {
    const read = await aws('GetTranscriptionJob', { TranscriptionJobName: 'call-1' });
    expect(read.status).toBe(200);
    expect((await aws('GetTranscriptionJob', { TranscriptionJobName: 'nope' })).json.__type).toBe('BadRequestException');
    const stop = await aws('StopTranscriptionJob', { TranscriptionJobName: 'call-1' });
    expect(stop.status).toBe(501);
    expect(stop.json.__type).toBe('UnsupportedOperation');
    await s.advance(1500);
    const done = await aws('GetTranscriptionJob', { TranscriptionJobName: 'call-1' });
    expect(done.json.TranscriptionJob.TranscriptionJobStatus).toBe('COMPLETED');
    const p1 = await s.call('POST', '/profiles/transcribe/', {
      headers: { 'x-amz-target': 'Transcribe.GetTranscript' },
      body: { TranscriptionJobName: 'call-1' },
    });
    expect(p1.json.Items).toHaveLength(2);
    const p2 = await aws('GetTranscript', { TranscriptionJobName: 'call-1', NextToken: p1.json.NextToken });
    expect(p2.json.Items).toHaveLength(1);
    expect(p2.json.NextToken).toBeUndefined();
  });

  it('finds a lost start by a part of its name (JobNameContains, in the body)', async () => {
    await aws('StartTranscriptionJob', { TranscriptionJobName: 'other-2', Media: {} });
    const r = await aws('ListTranscriptionJobs', { JobNameContains: 'all-' });
    expect(r.status).toBe(200);
    expect(
      r.json.TranscriptionJobSummaries.map(
        (j: { TranscriptionJob: { TranscriptionJobName: string } }) => j.TranscriptionJob.TranscriptionJobName,
      ),
    ).toEqual(['call-1']);
    expect((await aws('ListTranscriptionJobs', { MaxResults: 0 })).status).toBe(400);
  });

  it('an unknown operation is a 404 in the envelope, never a 5xx', async () => {
    const r = await aws('DeleteEverything', {});
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/x-amz-json-1.1');
  });
});
