import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/conformance/catalog-run.js';
import { createInMemoryReferenceClient } from '../../../src/reference-client/index.js';
import { catalog, getScenario, type Scenario } from '../../../src/scenarios/index.js';
import type { CallResult } from '../../helpers/provider-server.js';
import type { DialectServer } from '../dialects/helpers.js';
import { startProfileServer } from './helpers.js';
import { recordingFactory, type Tape } from './recording.js';

/**
 * `native` as a profile answers like the hand-written native routes (issue 21): the same request sequence against
 * `/v1/…` and `/profiles/native/v1/…` gives the same statuses, the headers that matter and the same bodies once ids,
 * times and the prefix are set aside. The sequences are a hand-written one (bad input included) and the requests
 * the reference client made in real catalog runs.
 */
let s: DialectServer;
beforeAll(async () => {
  s = await startProfileServer(['native']);
});
afterAll(() => s.stop());

const PREFIX = '/profiles/native';
const HEADERS = [
  'content-type',
  'location',
  'retry-after',
  'idempotent-replayed',
  'content-digest',
  'x-items-total',
  'x-items-failed',
  'allow',
  'www-authenticate',
];

/** A body with what must differ between two runs made equal: ids, times, request ids, the prefix, digests of id-bearing results. */
function normal(r: CallResult, ids: Map<string, string>): unknown {
  let text = r.text.split(PREFIX).join('');
  text = text.replace(/job_(?!id\b)[0-9a-z]+/g, (id) => {
    if (!ids.has(id)) ids.set(id, `JOB${ids.size}`);
    return ids.get(id)!;
  });
  text = text.replace(/req_[0-9a-z]+/g, 'REQ').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');
  text = text.replace(/"(sha256|value)":"x?[0-9a-f]+"/g, '"$1":"HEX"').replace(/sha-256=:[^:]+:/, 'sha-256=:B64:');
  // A refusal's wording may differ; its status, code, the fields it names and the job it carries may not.
  if (r.headers.get('content-type') === 'application/problem+json') {
    const p = JSON.parse(text) as { detail?: string; errors?: Array<{ path: string; message?: string }> };
    delete p.detail;
    if (p.errors) p.errors = p.errors.map((e) => ({ path: e.path }));
    text = JSON.stringify(p);
  }
  const headers = Object.fromEntries(
    HEADERS.map((h) => [
      h,
      r.headers
        .get(h)
        ?.split(PREFIX)
        .join('')
        .replace(/job_(?!id\b)[0-9a-z]+/g, (id) => ids.get(id) ?? id)
        .replace(/sha-256=:[^:]+:/, 'sha-256=:B64:') ?? null,
    ]),
  );
  return { status: r.status, headers, body: text };
}

type Step = { method: string; path: string; key?: string; body?: unknown; token?: string | null; advance?: number; raw?: string };

/** The catalog's kinds of request: create, replay, reuse, bad input, read, find, cancel, cancel again, results, 404s. */
function sequence(tag: string): Step[] {
  const body = { kind: 'report', input: { account: 'acct_1' }, client_ref: `op_${tag}` };
  return [
    { method: 'POST', path: '/v1/jobs', key: `k1-${tag}`, body },
    { method: 'POST', path: '/v1/jobs', key: `k1-${tag}`, body },
    { method: 'POST', path: '/v1/jobs', key: `k1-${tag}`, body: { ...body, client_ref: 'other' } },
    { method: 'POST', path: '/v1/jobs', body },
    { method: 'POST', path: '/v1/jobs', key: `k2-${tag}`, raw: '{not json' },
    { method: 'POST', path: '/v1/jobs', key: `k3-${tag}`, body, token: null },
    { method: 'GET', path: '/v1/jobs/$1' },
    { method: 'GET', path: `/v1/jobs?client_ref=op_${tag}` },
    { method: 'GET', path: `/v1/jobs?idempotency_key=k1-${tag}` },
    { method: 'GET', path: '/v1/jobs?limit=0' },
    { method: 'GET', path: '/v1/jobs/$1/results' },
    { method: 'GET', path: '/v1/jobs/$1', advance: 5000 },
    { method: 'GET', path: '/v1/jobs/$1/results' },
    { method: 'POST', path: '/v1/jobs/$1/cancel' },
    { method: 'POST', path: '/v1/jobs', key: `k4-${tag}`, body: { ...body, client_ref: `op2_${tag}` } },
    { method: 'POST', path: '/v1/jobs/$2/cancel' },
    { method: 'POST', path: '/v1/jobs/$2/cancel' },
    { method: 'GET', path: '/v1/jobs/$2', advance: 5000 },
    { method: 'GET', path: '/v1/jobs/job_nope' },
    { method: 'DELETE', path: '/v1/jobs/$1' },
  ];
}

async function play(prefix: string, tag: string, steps = sequence(tag)): Promise<unknown[]> {
  const created: string[] = [];
  const ids = new Map<string, string>();
  const out: unknown[] = [];
  for (const st of steps) {
    if (st.advance) await s.advance(st.advance);
    const path = prefix + st.path.replace(/\$(\d)/, (_m, n: string) => created[Number(n) - 1]!);
    const headers: Record<string, string> = st.key ? { 'idempotency-key': st.key } : {};
    const r = await s.call(st.method, path, { headers, body: st.raw ?? st.body, token: st.token }).catch((e: Error) => e);
    if (r instanceof Error) {
      out.push({ lost: true });
      continue;
    }
    if (st.method === 'POST' && st.path === '/v1/jobs' && r.status === 202 && r.headers.get('idempotent-replayed') === null)
      created.push(r.json.job_id);
    out.push(normal(r, ids));
  }
  return out;
}

/** A job id as the providers make them (a digit somewhere: never an error code such as `job_terminal`). */
const JOB_ID = /\bjob_(?=[0-9a-z]*\d)[0-9a-z]{12,}\b/g;

/**
 * The catalog scenarios whose recorded requests are replayed, with the scenario's behaviour and faults on both sides
 * (creates lost and replayed, cancels, results, lookups, 429s, 5xx): all but those restarting the provider, whose
 * requests meet a provider that is down.
 */
const holds = (f: { type: string; mode?: string }) => f.type === 'delay' || (f.type === 'lose_response' && f.mode === 'hang');
const CATALOG_RUNS = catalog.filter((sc) => !sc.actions.some((a) => a.type === 'restart_provider')).map((sc) => sc.name);

/**
 * The tape's requests, in the order they were made and as far apart in time, against a fresh provider serving the
 * scenario's behaviour: the native routes (prefix '') or the native profile. Ids the recording saw are swapped for
 * the ones this provider gave, matched in the order both answers name them.
 */
async function replay(tape: Tape, prefix: string, s: Scenario): Promise<unknown[]> {
  // A fault that holds a request on the virtual clock would hold a one-at-a-time replay for ever: left out.
  const faults = s.faults && { ...s.faults, rules: s.faults.rules.filter((r) => !holds(r.fault)) };
  const server = await startProfileServer(['native'], { behavior: s.behavior, faults });
  try {
    const swap = new Map<string, string>();
    const ids = new Map<string, string>();
    const out: unknown[] = [];
    let at = tape[0]?.at ?? 0;
    for (const st of tape) {
      if (st.at > at) await server.advance(st.at - at);
      at = Math.max(at, st.at);
      const path = prefix + st.path.replace(JOB_ID, (id) => swap.get(id) ?? id);
      const body = st.body?.replace(JOB_ID, (id) => swap.get(id) ?? id);
      const r = await server.call(st.method, path, { headers: st.headers, body }).catch((e: Error) => e);
      if (r instanceof Error) {
        out.push({ lost: true });
        continue;
      }
      const seen = (r.text.split(PREFIX).join('').match(JOB_ID) ?? []).map(String);
      (st.answer?.match(JOB_ID) ?? []).forEach((id, i) => {
        if (!swap.has(id) && seen[i]) swap.set(id, seen[i]);
      });
      out.push(normal(r, ids));
    }
    return out;
  } finally {
    await server.stop();
  }
}

describe('native as a profile', () => {
  it('answers the replayed request sequence like the hand-written routes', async () => {
    await s.control('PUT', '/_control/behavior', { body: { default: { duration_ms: 2000, items: 3 } } });
    const native = await play('', 'a');
    const profile = await play(PREFIX, 'b');
    const norm = (xs: unknown[]) =>
      JSON.parse(
        JSON.stringify(xs)
          .replace(/_a\b|-a\b/g, '_T')
          .replace(/_b\b|-b\b/g, '_T'),
      );
    const a = norm(native);
    const b = norm(profile);
    for (let i = 0; i < a.length; i++) expect({ step: i, ...(b[i] as object) }).toEqual({ step: i, ...(a[i] as object) });
  });

  it('meets the same faults the same way: a lost create, its replay with a foreign id, a rate-limited read', async () => {
    const plan = {
      seed: 3,
      rules: [
        { on: 'create', nth: 1, fault: { type: 'lose_response' } },
        { on: 'create', nth: 2, fault: { type: 'foreign_job_id' } },
        { on: 'status', nth: 1, fault: { type: 'rate_limit', retry_after: 2 } },
        { on: 'cancel', nth: 1, fault: { type: 'error_after_commit' } },
      ],
    };
    const steps = (tag: string): Step[] => {
      const body = { kind: 'report', input: { n: 1 }, client_ref: `f_${tag}` };
      return [
        { method: 'POST', path: '/v1/jobs', key: `f1-${tag}`, body },
        { method: 'POST', path: '/v1/jobs', key: `f1-${tag}`, body },
        { method: 'POST', path: '/v1/jobs', key: `f1-${tag}`, body },
        { method: 'GET', path: `/v1/jobs?idempotency_key=f1-${tag}` },
        { method: 'GET', path: `/v1/jobs?client_ref=f_${tag}` },
        { method: 'GET', path: '/v1/jobs/job_nope' },
        { method: 'GET', path: '/v1/jobs/job_nope' },
      ];
    };
    await s.control('PUT', '/_control/faults', { body: plan });
    const native = await play('', 'a', steps('a'));
    await s.control('PUT', '/_control/faults', { body: plan });
    const profile = await play(PREFIX, 'b', steps('b'));
    await s.control('DELETE', '/_control/faults');
    const norm = (xs: unknown[]) =>
      JSON.parse(
        JSON.stringify(xs)
          .replace(/_a\b|-a\b/g, '_T')
          .replace(/_b\b|-b\b/g, '_T'),
      );
    expect(native[0]).toEqual({ lost: true });
    expect((native as Array<{ status?: number }>).map((r) => r.status)).toEqual([undefined, 202, 202, 200, 200, 429, 404]);
    expect(norm(profile)).toEqual(norm(native));
  });

  it('answers the requests of real catalog runs like the hand-written routes', async () => {
    const covered = new Set<string>();
    let replayed = 0;
    for (const name of CATALOG_RUNS) {
      const scenario = { ...getScenario(name), webhooks: false };
      const tape: Tape = [];
      const [run] = await runCatalog({ kind: 'in-process', factory: recordingFactory(createInMemoryReferenceClient, tape) }, [scenario], {
        seed: 1,
      });
      expect(run!.verdict, `${name}: the recorded run itself`).not.toBe('error');
      expect(tape.length, name).toBeGreaterThan(0);
      replayed += tape.length;
      for (const st of tape) covered.add(`${st.method} ${st.path.replace(JOB_ID, '{id}').replace(/\?.*/, '?')}`);
      const [native, profile] = await Promise.all([replay(tape, '', scenario), replay(tape, PREFIX, scenario)]);
      for (let i = 0; i < native.length; i++)
        expect({ scenario: name, step: i, ...(profile[i] as object) }).toEqual({ scenario: name, step: i, ...(native[i] as object) });
    }
    expect(CATALOG_RUNS.length).toBeGreaterThan(20);
    expect(replayed).toBeGreaterThan(80);
    // The runs exercised every route the reference client speaks.
    expect([...covered].sort()).toEqual(
      expect.arrayContaining([
        'GET /v1/jobs/{id}',
        'GET /v1/jobs/{id}/results',
        'GET /v1/jobs?',
        'POST /v1/jobs',
        'POST /v1/jobs/{id}/cancel',
      ]),
    );
  }, 120_000);

  it('journals profile traffic with its route names and the profile as its API', async () => {
    const entries = s.provider.journal.all().filter((e) => e.type === 'request' && e.path.startsWith(PREFIX));
    expect(entries.length).toBeGreaterThan(10);
    expect(new Set(entries.map((e) => (e.type === 'request' ? e.route : null)))).toEqual(
      new Set(['create', 'status', 'list', 'results', 'cancel', null]),
    );
    // The profile's name is `native`: its traffic is journalled as the native API's (no dialect field), told from the
    // hand-written routes' by its path (docs/decisions/029-native-as-a-profile.md).
    expect(new Set(entries.map((e) => (e.type === 'request' ? e.dialect : null)))).toEqual(new Set([undefined]));
  });
});
