/**
 * The drafter's logic without the CLI: the Azure status-monitor shape (202 + Operation-Location, no body,
 * x-ms-long-running-operation, Operation-Id, `:cancel`, Retry-After) read from a document, the state words, and the
 * rule that a draft always covers every engine state (mapped or shown as another value) and marks what it guessed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '../../src/contract/jobs.js';
import { CONFIRM_KEY } from '../../src/contract/profile-confirm.js';
import { whole } from '../../src/contract/profile-template.js';
import { parseProfileText } from '../../src/contract/profile-check.js';
import { draftProfile } from '../../src/profile-init/draft.js';
import { engineStateOf, mapStates } from '../../src/profile-init/states.js';

const status = {
  type: 'object',
  required: ['id', 'status'],
  properties: {
    id: { type: 'string' },
    status: { $ref: '#/components/schemas/State' },
    createdDateTime: { type: 'string', format: 'date-time' },
    percentCompleted: { type: 'integer' },
    error: { $ref: '#/components/schemas/Error' },
    result: { type: 'object' },
  },
};
const azureLike = {
  openapi: '3.0.3',
  info: { title: 'Contoso Reports', version: '2024-01-01' },
  paths: {
    '/reports:generate': {
      post: {
        'x-ms-long-running-operation': true,
        'x-ms-long-running-operation-options': { 'final-state-via': 'operation-location' },
        parameters: [{ name: 'Operation-Id', in: 'header', schema: { type: 'string' } }],
        requestBody: {
          content: {
            'application/json': { schema: { type: 'object', required: ['account'], properties: { account: { type: 'string' } } } },
          },
        },
        responses: {
          '202': { description: 'accepted', headers: { 'Operation-Location': { schema: { type: 'string' } } } },
          default: { description: 'error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } } },
        },
      },
    },
    '/operations/{operationId}': {
      get: {
        parameters: [{ name: 'operationId', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'status',
            headers: { 'Retry-After': { schema: { type: 'integer' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
          },
        },
      },
    },
    '/operations/{operationId}:cancel': {
      post: {
        responses: {
          '202': { description: 'cancelling', content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      State: { type: 'string', enum: ['NotStarted', 'Running', 'Succeeded', 'Failed', 'Canceled', 'Paused'] },
      Status: status,
      Error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } } },
      ErrorResponse: { type: 'object', properties: { error: { $ref: '#/components/schemas/Error' } } },
    },
    securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'Ocp-Apim-Subscription-Key' } },
  },
};

describe('draftProfile', () => {
  it('reads an Azure status monitor: 202 + Operation-Location and no body, Operation-Id, :cancel, Retry-After', () => {
    const d = draftProfile(JSON.stringify(azureLike));
    if (!d.ok) throw new Error(d.message);
    const p = d.profile;
    expect(p.create).toMatchObject({
      route: { method: 'POST', path: '/reports:generate' },
      status: 202,
      body: null,
      required: ['account'],
    });
    expect(Object.keys(p.create.headers ?? {})).toEqual(['Operation-Location']);
    expect(p.read.route.path).toBe('/operations/{id}');
    expect(p.cancel).toMatchObject({ route: { method: 'POST', path: '/operations/{id}:cancel' }, status: 202 });
    expect(p.idempotency).toEqual({ source: 'header', name: 'Operation-Id', required: false });
    expect(p.retry_after).toEqual({ reads: true });
    expect(p.auth).toEqual({ type: 'header', name: 'Ocp-Apim-Subscription-Key' });
    expect(p.errors.body).toEqual({ error: { code: whole('code'), message: whole('message') } });
    expect(p.view).toMatchObject({
      id: whole('id'),
      status: whole('state'),
      createdDateTime: whole('created_at?'),
      percentCompleted: whole('progress.percent'),
    });
    expect(d.found.join('\n')).toMatch(/x-ms-long-running-operation: true.*answers 202.*Operation-Location/);
    expect(d.found).toContain('final state via operation-location');
    // The value no word list knows is mapped to running and marked; the expired state is shown as Failed, marked.
    expect(p.state.values.Paused).toBe('running');
    expect(d.guesses.map((g) => g.path)).toEqual(
      expect.arrayContaining(['state.values.Paused', 'state.serve_as.expired', 'view.status', 'state.values']),
    );
    // Refused with the guesses, accepted without them.
    const text = JSON.stringify(p, null, 2);
    const refused = parseProfileText(text);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.problems.filter((x) => x.message.startsWith('unconfirmed guess'))).toHaveLength(d.guesses.length);
    const { [CONFIRM_KEY]: _c, ...rest } = p;
    expect(parseProfileText(JSON.stringify(rest)).ok).toBe(true);
  });

  it('folds case and punctuation onto the engine states', () => {
    expect(
      ['NotStarted', 'not_started', 'CANCELLATION_REQUESTED', 'TIMEOUT_EXCEEDED', 'Canceled', 'in-progress', 'JOB_STATE_SUCCEEDED'].map(
        engineStateOf,
      ),
    ).toEqual(['queued', 'queued', 'cancelling', 'expired', 'cancelled', 'running', 'succeeded']);
  });

  it('every engine state is mapped or shown as one of the API values, whatever the enum (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.oneof(fc.constantFrom('queued', 'Running', 'SUCCESS', 'error', 'canceled', 'expired', 'paused'), fc.string()), {
          minLength: 1,
          maxLength: 8,
        }),
        (values) => {
          const m = mapStates(values);
          const covered = new Set([...Object.values(m.values), ...Object.keys(m.serveAs)]);
          expect([...covered].sort()).toEqual([...JOB_STATES].sort());
          for (const shown of Object.values(m.serveAs)) expect(values).toContain(shown);
        },
      ),
    );
  });
});

const operation = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    metadata: { type: 'object', additionalProperties: true },
    done: { type: 'boolean' },
    error: { $ref: '#/components/schemas/Status' },
    response: { type: 'object', additionalProperties: true },
  },
};
const aip151 = {
  openapi: '3.0.0',
  info: { title: 'Reports', version: 'v1' },
  paths: {
    '/v1/reports:generate': {
      post: {
        responses: {
          '200': { description: 'op', content: { 'application/json': { schema: { $ref: '#/components/schemas/Operation' } } } },
        },
      },
    },
    '/v1/operations': {
      get: {
        parameters: ['filter', 'pageSize', 'pageToken'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
        responses: {
          '200': {
            description: 'list',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ListOperationsResponse' } } },
          },
        },
      },
    },
    '/v1/operations/{operationsId}': {
      get: {
        responses: {
          '200': { description: 'op', content: { 'application/json': { schema: { $ref: '#/components/schemas/Operation' } } } },
        },
      },
    },
    '/v1/operations/{operationsId}:cancel': { post: { responses: { '200': { description: 'empty' } } } },
  },
  components: {
    schemas: {
      Operation: operation,
      Status: { type: 'object', properties: { code: { type: 'integer', format: 'int32' }, message: { type: 'string' } } },
      ListOperationsResponse: {
        type: 'object',
        properties: { operations: { type: 'array', items: { $ref: '#/components/schemas/Operation' } }, nextPageToken: { type: 'string' } },
      },
    },
  },
};

describe('draftProfile on an AIP-151 operation (no state enum)', () => {
  it('derives the state from done and error, names the operation, and the draft is accepted once confirmed', () => {
    const d = draftProfile(JSON.stringify(aip151));
    if (!d.ok) throw new Error(d.message);
    const p = d.profile;
    expect(p.state.derived).toEqual([
      { when: { done: false }, state: 'running' },
      { when: { done: true, 'error.code': 1 }, state: 'cancelled' },
      { when: { done: true, error: '$present' }, state: 'failed' },
      { when: { done: true }, state: 'succeeded' },
    ]);
    expect(p.view).toMatchObject({
      name: `operations/${whole('id')}`,
      done: whole('done'),
      error: whole('error?'),
      response: whole('result.items?'),
    });
    expect(p.read.route.path).toBe('/v1/operations/{id}');
    expect(p.cancel).toMatchObject({ route: { method: 'POST', path: '/v1/operations/{id}:cancel' }, body: null });
    expect(p.find).toMatchObject({
      page: { size_param: 'pageSize', token_param: 'pageToken' },
      body: { operations: whole('items'), nextPageToken: whole('next_page_token') },
    });
    expect(d.guesses.map((g) => g.path)).toEqual(expect.arrayContaining(['state.derived', 'view.name']));
    const { [CONFIRM_KEY]: _c, ...rest } = p;
    const checked = parseProfileText(JSON.stringify(rest));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });
});
