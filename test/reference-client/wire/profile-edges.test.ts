import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProfileText } from '../../../src/contract/profile-check.js';
import { whole } from '../../../src/contract/profile-template.js';
import { type Profile, ProfileSchema } from '../../../src/contract/profiles.js';
import { waitFor } from '../../helpers/provider-server.js';
import { REPORTS_FILE, op, startProfileRig, workOut, type ProfileRig } from './profile-rig.js';

/**
 * What the profile adapter does where an API offers less than the built-ins: no cancel (the operation says the
 * cancel cannot be confirmed, at once), no key and no lookup (a lost create is ambiguous for good: the operation ends
 * honestly at its deadline and never creates again), and a client-chosen job id instead of a key (a lost create is
 * found by reading that id; the repeated create meets "taken" and makes no second job).
 */
function variant(name: string, change: (raw: Record<string, any>) => void): Profile {
  const raw = JSON.parse(readFileSync(REPORTS_FILE, 'utf8')) as Record<string, any>;
  raw.name = name;
  raw.prefix = `/profiles/${name}`;
  change(raw);
  const r = parseProfileText(JSON.stringify(raw));
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.problems)}`);
  return r.profile;
}

const noCancel = variant('reports-no-cancel', (r) => {
  r.cancel = { unsupported: { route: { method: 'POST', path: '/v1/reports/{id}/cancel' }, status: 501 } };
});
const noKey = variant('reports-no-key', (r) => {
  r.idempotency = { source: 'none' };
  delete r.find;
});
const named = variant('reports-named', (r) => {
  r.id = { source: 'body', field: 'report_name' };
  r.idempotency = { source: 'client_id' };
  delete r.find;
});

/** An AWS Transcribe-like API (as in the provider's header-operations test): operations chosen by a header on one path. */
const target = (op: string) => ({ header: 'X-Amz-Target', value: `Transcribe.${op}` });
const transcribe = ProfileSchema.parse({
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
    codes: { job_not_found: 'BadRequestException', conflict: 'ConflictException', invalid_request: 'BadRequestException' },
    statuses: { job_not_found: 400 },
  },
});

let rig: ProfileRig;
beforeAll(async () => {
  rig = await startProfileRig([noCancel, noKey, named, transcribe]);
});
afterAll(() => rig.close());

describe('a profile that offers less', () => {
  it('an API that cannot cancel: the cancel ends cancellation_unconfirmed on its 501, and the job runs on', {
    timeout: 30_000,
  }, async () => {
    await rig.faults([]);
    await rig.behave({ duration_ms: 20_000, items: 2 });
    const c = rig.client(noCancel);
    await c.submit(op(noCancel, 'nc-1'));
    const done = workOut(c);
    await waitFor(async () => ['accepted', 'observing'].includes((await c.show('nc-1')).state), 15_000);
    await c.cancel('nc-1', { actor: 'test', reason: 'stop', cancel_deadline_ms: 15_000 });
    await done;
    const rec = await c.show('nc-1');
    expect(rec.state).toBe('cancellation_unconfirmed');
    expect(rec.history.at(-1)).toMatchObject({ to: 'cancellation_unconfirmed', evidence: { kind: 'cancel_answer', status: 501 } });
    const cancels = rig.requests(noCancel).filter((e) => e.route === 'cancel');
    expect(cancels.map((e) => e.status)).toEqual([501]);
    expect(['queued', 'running']).toContain(rig.server.provider.core.jobs.get(rec.remote_job_id!)?.state);
  });

  it('no key, no lookup: a lost create is never sent again, and the operation ends honestly at its deadline', {
    timeout: 30_000,
  }, async () => {
    await rig.behave({ duration_ms: 300, items: 2 });
    await rig.faults([{ on: 'create', times: 1, fault: { type: 'lose_response', mode: 'reset' } }]);
    const c = rig.client(noKey);
    await c.submit(op(noKey, 'nk-1', { create_deadline_ms: 1500, result_deadline_ms: 2500 }));
    await workOut(c);
    await rig.faults([]);
    const rec = await c.show('nk-1');
    expect(rec.state).toBe('result_timed_out');
    expect(rec.idempotency_key).toBeNull();
    const creates = rig.requests(noKey).filter((e) => e.route === 'create');
    // The one job the lost answer made; nothing else was created, and no key was ever sent.
    expect(creates.map((e) => [e.effect, e.delivery])).toEqual([['created', 'lost']]);
    expect(creates[0]!.idempotency_key).toBeNull();
  });

  it('a client-chosen id: the lost create is read back by its id and the repeated create makes no second job', {
    timeout: 30_000,
  }, async () => {
    await rig.behave({ duration_ms: 300, items: 2 });
    await rig.faults([{ on: 'create', times: 1, fault: { type: 'lose_response', mode: 'reset' } }]);
    const c = rig.client(named);
    await c.submit(op(named, 'nm-1'));
    await workOut(c);
    await rig.faults([]);
    const rec = await c.show('nm-1');
    expect(rec.state, JSON.stringify(rec.history)).toBe('succeeded');
    const creates = rig.requests(named).filter((e) => e.route === 'create');
    expect(creates.filter((e) => e.effect === 'created')).toHaveLength(1);
    expect(rec.remote_job_id).toBe(creates[0]!.job_id);
    expect(rec.remote_job_id).toBe(rec.idempotency_key);
  });

  it('an AWS-style API (header operations, a chosen name, body-borne lookup and pages): a lost create, then paged results', {
    timeout: 30_000,
  }, async () => {
    await rig.behave({ duration_ms: 300, items: 5, items_failed: 1 });
    await rig.faults([{ on: 'create', times: 1, fault: { type: 'lose_response', mode: 'reset' } }]);
    const c = rig.client(transcribe);
    await c.submit(op(transcribe, 'tr-1', { input: { Media: { MediaFileUri: 's3://bucket/a.wav' } } }));
    await workOut(c);
    await rig.faults([]);
    const rec = await c.show('tr-1');
    expect(rec.state, JSON.stringify(rec.history)).toBe('succeeded');
    expect(rec.result).toMatchObject({ items_total: 5, items_failed: 1 });
    const sent = rig.requests(transcribe);
    expect(sent.filter((e) => e.route === 'create' && e.effect === 'created')).toHaveLength(1);
    expect(sent.some((e) => e.route === 'list')).toBe(true);
    // Five items two a page: three results pages, each asked with the previous page's token in the body.
    expect(sent.filter((e) => e.route === 'results' && e.status === 200)).toHaveLength(3);
    expect(rec.result?.sha256).toBe(rig.server.provider.core.jobs.get(rec.remote_job_id!)?.result?.sha256);
  });
});
