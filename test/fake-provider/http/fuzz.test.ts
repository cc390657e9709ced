/**
 * Fuzz over real HTTP: random methods, paths, headers and bodies. The provider must never answer 5xx, never crash,
 * always stamp X-Request-ID, answer errors as problems (under a dialect's prefix: in that API's own error shape), and
 * never let a request touch another tenant's job or batch.
 */
import fc from 'fast-check';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_TOKENS } from '../../../src/contract/index.js';
import { createBody, newKey, startProviderServer, waitFor, type ProviderServer } from '../../helpers/provider-server.js';

const RUNS = process.env.JOBPROOF_LONG ? 2000 : 150;

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    // Without Content-Length node sends a GET body unframed, which is malformed HTTP and not what we test here.
    const framed = body === undefined ? headers : { ...headers, 'content-length': String(body.length) };
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers: framed, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

// Characters a client can put on the wire. Headers: printable ASCII, tab and latin-1 bytes (non-UTF-8 on the wire).
// Paths: printable ASCII with plenty of '%' garbage; raw non-ASCII bytes in a request line are refused by node's HTTP
// parser itself (a bare 400 before the provider sees anything), so they are sent percent-encoded.
const PATH_CHARS = [
  ...'abcxyz019_-.~!$&\'()*+,;=:@/%%%%?#[]{}|^`"<>\\',
  '%00',
  '%zz',
  '%E0%A4%A',
  '%C3%28',
  '%FF',
  '%E9',
  '%FF%FE',
  '%80',
  '%25',
  '%2F',
  '%3F',
];
const HEADER_CHARS = [...'abcXYZ019 _-"\\,;=:/\t', '\u00e9', '\u00ff', '\u0080', '\u00a0', 'é'];
const junkPath = fc.array(fc.constantFrom(...PATH_CHARS), { maxLength: 30 }).map((a) => a.join(''));
const junkHeader = fc.array(fc.constantFrom(...HEADER_CHARS), { maxLength: 300 }).map((a) => a.join('').trim());

let ps: ProviderServer;
/** Jobs of a tenant ('initech') that no fuzzed request can authenticate as. */
let protectedRunning: string;
let protectedDone: string;
/** initech's batches in each dialect (running). */
let protectedOpenai: string;
let protectedAnthropic: string;
let protectedFile: string;

function pathArb(): fc.Arbitrary<string> {
  const id = fc.oneof(
    junkPath,
    fc.constant('job_'),
    fc.constantFrom('PROTECTED_RUNNING', 'PROTECTED_DONE', 'PROTECTED_OPENAI', 'PROTECTED_ANTHROPIC', 'PROTECTED_FILE'),
    fc.string({ maxLength: 40 }).map(encodeURIComponent),
  );
  const query = fc.oneof(
    fc.constant(''),
    junkPath.map((j) => `?${j}`),
    fc
      .tuple(fc.constantFrom('client_ref', 'idempotency_key', 'limit', 'cursor', 'since', 'after', 'after_id', 'before_id'), junkPath)
      .map(([k, v]) => `?${k}=${v}`),
    fc.constantFrom(
      '?after=PROTECTED_OPENAI',
      '?after_id=PROTECTED_ANTHROPIC&limit=1000',
      '?before_id=PROTECTED_ANTHROPIC',
      '?after_id=x&before_id=y',
      '?limit=1001',
    ),
    fc.constantFrom(
      '?limit=0',
      '?limit=1e3',
      '?limit=-1',
      '?cursor=c-1',
      '?cursor=c99999999999999999999',
      '?client_ref=&limit=',
      '?since=NaN',
    ),
  );
  return fc
    .oneof(
      fc.constantFrom(
        '/',
        '/v1',
        '/v1/',
        '/v1/jobs',
        '/v1/jobs/',
        '/v1//jobs',
        '//v1/jobs',
        '/_control',
        '/_control/',
        '/%',
        '/%%',
        '/v1/jobs/%',
      ),
      id.map((i) => `/v1/jobs/${i}`),
      id.map((i) => `/v1/jobs/${i}/cancel`),
      id.map((i) => `/v1/jobs/${i}/results`),
      id.map((i) => `/v1/jobs/${i}/${i}`),
      // The dialects (dialects.md): OpenAI Files and Batches, Anthropic Message Batches.
      fc.constantFrom(
        '/openai',
        '/openai/',
        '/openai/v1',
        '/openai/v1/files',
        '/openai/v1/batches',
        '/openai/v1/batches/',
        '/anthropic',
        '/anthropic/v1/messages/batches',
        '/anthropic/v1/messages/batches/',
      ),
      id.map((i) => `/openai/v1/files/${i}`),
      id.map((i) => `/openai/v1/files/${i}/content`),
      id.map((i) => `/openai/v1/batches/${i}`),
      id.map((i) => `/openai/v1/batches/${i}/cancel`),
      id.map((i) => `/anthropic/v1/messages/batches/${i}`),
      id.map((i) => `/anthropic/v1/messages/batches/${i}/cancel`),
      id.map((i) => `/anthropic/v1/messages/batches/${i}/results`),
      fc
        .constantFrom('jobs', 'journal', 'faults', 'behavior', 'reset', 'clock')
        .chain((p) => junkPath.map((j) => `/_control/${p}${j.length % 2 ? j : ''}`)),
      junkPath.map((j) => `/${j}`),
    )
    .chain((p) => query.map((q) => `${p}${q}`))
    .map((p) =>
      p
        .replace('PROTECTED_RUNNING', protectedRunning)
        .replace('PROTECTED_DONE', protectedDone)
        .replace('PROTECTED_OPENAI', protectedOpenai)
        .replace('PROTECTED_ANTHROPIC', protectedAnthropic)
        .replace('PROTECTED_FILE', protectedFile),
    )
    .map((p) => (p.startsWith('/') ? p : `/${p}`).replace(/#/g, '%23'));
}

const deep = (depth: number, closed: boolean) => {
  const inner = '['.repeat(depth) + (closed ? ']'.repeat(depth) : '');
  return `{"kind":"report","input":{"x":${inner}}}`;
};

const bodyArb: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '',
        '{',
        '[',
        '{"kind":',
        'null',
        'true',
        '"s"',
        '1e999',
        '{"kind":"report","input":{}}}',
        '\ufeff{"kind":"report","input":{}}',
      )
      .map((s) => Buffer.from(s)),
  },
  {
    weight: 3,
    arbitrary: fc
      .record({
        kind: fc.oneof(fc.constant('report'), fc.string({ maxLength: 70 })),
        input: fc.jsonValue({ maxDepth: 3 }),
        client_ref: fc.option(fc.string({ maxLength: 210 }), { nil: undefined }),
        webhook_url: fc.option(fc.constantFrom('http://127.0.0.1:9/hooks', 'ftp://x', 'javascript:alert(1)', 'http://'), {
          nil: undefined,
        }),
      })
      .map((o) => Buffer.from(JSON.stringify(o))),
  },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }).map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: fc.record({ reason: fc.jsonValue() }).map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 1, arbitrary: fc.record({ advance_ms: fc.jsonValue() }).map((o) => Buffer.from(JSON.stringify(o))) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1_000, max: 300_000 }), fc.boolean()).map(([d, c]) => Buffer.from(deep(d, c))) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 3000 }).map((a) => Buffer.from(a)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from([0x7b, 0x22, 0x6b, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      Buffer.from('{"kind":"report","input":{"s":"\xff\xfe"}}', 'latin1'),
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(1024 * 1024 + 1, 1024 * 1024 + 64 * 1024).map((n) => Buffer.alloc(n, 0x20)) },
  // Dialect bodies: OpenAI batch creates, Anthropic batch creates, multipart uploads (boundary x).
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          input_file_id: fc.oneof(fc.constant('PROTECTED_FILE'), fc.string({ maxLength: 20 })),
          endpoint: fc.oneof(fc.constantFrom('/v1/chat/completions', '/v1/embeddings'), fc.string({ maxLength: 20 })),
          completion_window: fc.constantFrom('24h', '48h', 24),
          metadata: fc.option(fc.dictionary(fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 20 }), {
            nil: undefined,
          }),
        },
        { requiredKeys: [] },
      )
      .map((o) => Buffer.from(JSON.stringify(o).replace('PROTECTED_FILE', protectedFile))),
  },
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          requests: fc.oneof(
            fc.jsonValue({ maxDepth: 2 }),
            fc.array(
              fc.record(
                {
                  custom_id: fc.oneof(fc.constantFrom('a', 'a', 'b-1'), fc.string({ maxLength: 70 })),
                  params: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ model: 'm', max_tokens: 1, messages: [] })),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 4 },
            ),
          ),
        },
        { requiredKeys: [] },
      )
      .map((o) => Buffer.from(JSON.stringify(o))),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('batch', 'fine-tune', '', 'x'),
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.constant('{"custom_id":"m-1","method":"POST","url":"/v1/chat/completions","body":{}}\n'),
        ),
        fc.boolean(),
      )
      .map(([purpose, file, withFile]) =>
        Buffer.from(
          `--x\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n` +
            (withFile
              ? `--x\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\nContent-Type: application/jsonl\r\n\r\n${file}\r\n`
              : '') +
            '--x--\r\n',
        ),
      ),
  },
);

const TOKENS = ['dev-token', 'dev-token-2', 'other-tenant-token', 'reviewer-token', 'control-token'];
const headersArb = fc.record(
  {
    authorization: fc.oneof(
      fc.constantFrom(...TOKENS.map((t) => `Bearer ${t}`)),
      junkHeader,
      junkHeader.map((j) => `Bearer ${j}`),
      fc.constantFrom('Bearer', 'bearer  dev-token ', 'Basic ZGV2LXRva2Vu', 'Bearer dev-token, Bearer control-token'),
    ),
    'idempotency-key': fc.oneof(
      junkHeader,
      junkHeader.map((j) => `"${j}"`),
      fc.constant('x'.repeat(300)),
      fc.constant('"a\\"b"'),
      fc.constant('').map(() => newKey('fz')),
    ),
    'x-trace-id': junkHeader,
    'x-worker-id': junkHeader,
    'x-api-key': fc.oneof(fc.constantFrom(...TOKENS), junkHeader),
    'anthropic-version': fc.oneof(fc.constant('2023-06-01'), junkHeader),
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/json; charset=latin1',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
    ),
  },
  { requiredKeys: [] },
);

/** A body that prints short in a counterexample. */
class Body {
  constructor(readonly bytes: Buffer) {}
  [fc.toStringMethod](): string {
    return `Body(${this.bytes.length} bytes: ${JSON.stringify(this.bytes.subarray(0, 80).toString('latin1'))}${this.bytes.length > 80 ? '…' : ''})`;
  }
}

/** Which error shape a path's answer must have: the mount decides, whatever went wrong. */
function expectErrorShape(path: string, res: RawAnswer, ctx: string): void {
  const pathname = path.split('?')[0]!;
  const p = JSON.parse(res.body.toString('utf8'));
  // A percent-encoded prefix may or may not be decoded before routing; any of the three shapes is then acceptable.
  const ambiguous = pathname.slice(0, 12).includes('%');
  const openai = () => {
    expect(res.headers['content-type'], ctx).toMatch(/^application\/json/);
    expect(p, ctx).toEqual({
      error: {
        message: expect.any(String),
        type: expect.any(String),
        param: expect.toSatisfy((v) => v === null || typeof v === 'string'),
        code: expect.toSatisfy((v) => v === null || typeof v === 'string'),
      },
    });
  };
  const anthropic = () => {
    expect(res.headers['content-type'], ctx).toMatch(/^application\/json/);
    expect(p, ctx).toEqual({
      type: 'error',
      error: { type: expect.any(String), message: expect.any(String) },
      request_id: res.headers['x-request-id'],
    });
    expect(res.headers['request-id'], ctx).toBe(res.headers['x-request-id']);
  };
  const native = () => {
    expect(res.headers['content-type'], ctx).toMatch(/^application\/problem\+json/);
    expect(p, ctx).toMatchObject({
      status: res.status,
      code: expect.any(String),
      type: expect.stringMatching(/^https:\/\/jobproof\.dev\/problems\//),
      request_id: res.headers['x-request-id'],
    });
  };
  if (ambiguous && (p.error !== undefined || p.type === 'error')) {
    if (p.type === 'error') anthropic();
    else openai();
    return;
  }
  if (pathname === '/openai' || pathname.startsWith('/openai/')) openai();
  else if (pathname === '/anthropic' || pathname.startsWith('/anthropic/')) anthropic();
  else native();
}

const requestArb = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
  path: fc.constant(null).chain(() => pathArb()),
  headers: headersArb,
  body: bodyArb.map((b) => (b === undefined ? undefined : new Body(b))),
});

beforeAll(async () => {
  ps = await startProviderServer({
    tokens: { tokens: { ...DEFAULT_TOKENS, 'owner-token': { tenant: 'initech', subject: 'owner', roles: ['submitter'] } } },
    behavior: { default: { duration_ms: 3_600_000 }, by_kind: { quick: { mode: 'sync' } } },
  });
  const mk = async (kind: string) =>
    (
      await ps.call('POST', '/v1/jobs', {
        token: 'owner-token',
        headers: { 'idempotency-key': newKey() },
        body: createBody({ kind, webhook_url: undefined }),
      })
    ).json.job_id as string;
  protectedRunning = await mk('report');
  protectedDone = await mk('quick');
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob(['{"custom_id":"p-1","method":"POST","url":"/v1/chat/completions","body":{"model":"m"}}\n']), 'p.jsonl');
  protectedFile = (
    (await (
      await fetch(`${ps.url}/openai/v1/files`, { method: 'POST', headers: { authorization: 'Bearer owner-token' }, body: form })
    ).json()) as { id: string }
  ).id;
  protectedOpenai = (
    await ps.call('POST', '/openai/v1/batches', {
      token: 'owner-token',
      body: { input_file_id: protectedFile, endpoint: '/v1/chat/completions', completion_window: '24h' },
    })
  ).json.id;
  protectedAnthropic = (
    await ps.call('POST', '/anthropic/v1/messages/batches', {
      token: null,
      headers: { 'x-api-key': 'owner-token' },
      body: { requests: [{ custom_id: 'p-1', params: { model: 'm', max_tokens: 1, messages: [] } }] },
    })
  ).json.id;
  expect(protectedFile).toMatch(/^file-/);
  expect(protectedOpenai).toMatch(/^batch_/);
  expect(protectedAnthropic).toMatch(/^msgbatch_/);
  for (const id of [protectedRunning, protectedOpenai, protectedAnthropic]) {
    await waitFor(async () => (await ps.call('GET', `/v1/jobs/${id}`, { token: 'owner-token' })).json.state === 'running');
  }
});
afterAll(async () => {
  agent.destroy();
  await ps.stop();
});

describe('fuzz over HTTP', () => {
  it(
    'never answers 5xx, never crashes, never touches a job of another tenant',
    async () => {
      const protectedJobs = async () =>
        (await ps.control('GET', '/_control/jobs')).json.data.filter((j: { tenant: string }) => j.tenant === 'initech');
      const before = await protectedJobs();
      expect(before).toHaveLength(4);
      const protectedIds = [protectedRunning, protectedDone, protectedOpenai, protectedAnthropic];
      const protectedJournal = () =>
        ps.provider.journal.all().filter((e) => e.type !== 'request' && protectedIds.includes(e.job_id)).length;
      const journalBefore = protectedJournal();
      const errors = vi.spyOn(console, 'error');
      const journalMark = ps.provider.journal.lastSeq();
      let n = 0;
      try {
        await fc.assert(
          fc.asyncProperty(requestArb, async (r) => {
            const headers = Object.fromEntries(Object.entries(r.headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
            // The control token may look, never change: a reset or a fault plan would legitimately break the checks.
            if (headers.authorization?.includes('control-token') && r.method !== 'GET' && r.method !== 'HEAD')
              headers.authorization = 'Bearer control-token-not';
            const ctx = `${r.method} ${r.path.slice(0, 200)} ${JSON.stringify(headers).slice(0, 300)} body=${r.body?.bytes.length ?? 'none'}`;
            const res = await raw(ps.url, r.method, r.path, headers, r.body?.bytes);
            n++;
            expect(res.status, ctx).toBeLessThan(500);
            expect(res.status, ctx).toBeGreaterThanOrEqual(200);
            expect(res.headers['x-request-id'], ctx).toMatch(/^req_[0-9a-z]+$/);
            // A trace id is echoed as sent (trimmed) when it is ASCII; any trace id is journalled (below).
            const trace = headers['x-trace-id']?.trim() || undefined;
            expect(res.headers['x-trace-id'], ctx).toBe(trace && /^[\x20-\x7e\t]+$/.test(trace) ? trace : undefined);
            if (res.status >= 400 && r.method !== 'HEAD') expectErrorShape(r.path, res, ctx);
            // Every answer of the jobs API is in the journal under its X-Request-ID (control requests are not journalled).
            const entry = ps.provider.journal
              .since(journalMark)
              .find((e) => e.type === 'request' && e.request_id === res.headers['x-request-id']);
            if (!entry) expect(new URL(r.path.replace(/\\/g, '%5C'), 'http://x').pathname, ctx).toMatch(/^\/_control/);
            else
              expect(entry, ctx).toMatchObject({ status: res.status, method: r.method, trace_id: headers['x-trace-id']?.trim() || null });
            const protectedIds = [protectedRunning, protectedDone, protectedOpenai, protectedAnthropic, protectedFile];
            if (protectedIds.some((id) => r.path.split('?')[0]!.includes(id))) {
              // Nobody but the owner (never fuzzed) gets anything out of initech's jobs... except the control API, which
              // may only list them.
              if (!r.path.startsWith('/_control')) expect(res.status, ctx).toBeGreaterThanOrEqual(400);
            }
            // A protected id in a query (a list cursor) may be ignored or refused, never answered with initech's data.
            if (res.status < 300 && !r.path.startsWith('/_control')) {
              const text = res.body.toString('latin1');
              for (const id of protectedIds) expect(text.includes(id), `${ctx}: answer names ${id}`).toBe(false);
            }
            if (n % 25 === 0) expect((await ps.call('GET', `/v1/jobs/${protectedRunning}`, { token: 'owner-token' })).status).toBe(200);
          }),
          { numRuns: RUNS },
        );
      } finally {
        errors.mockRestore();
      }
      expect(errors, 'the provider logged an unexpected error').not.toHaveBeenCalled();
      // Still answering, and initech's jobs are exactly as they were.
      expect((await ps.call('GET', `/v1/jobs/${protectedRunning}`, { token: 'owner-token' })).json.state).toBe('running');
      expect(await protectedJobs()).toEqual(before);
      expect(protectedJournal()).toBe(journalBefore);
      expect((await ps.call('GET', `/v1/jobs/${protectedDone}/results`, { token: 'owner-token' })).status).toBe(200);
    },
    process.env.JOBPROOF_LONG ? 900_000 : 30_000,
  );
});

describe('hostile bodies, aimed', () => {
  it.each([
    ['deeply nested arrays in input', (d: number) => `{"kind":"report","input":{"x":${'['.repeat(d)}${']'.repeat(d)}}}`],
    ['deeply nested objects in input', (d: number) => `{"kind":"report","input":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`],
  ])('a create with %s is answered without a 5xx', async (_n, make) => {
    for (const depth of [90, 5_000, 100_000]) {
      const body = make(depth);
      const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' }, body });
      expect(res.status, `depth ${depth}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      if (depth > 90)
        expect(res.json).toMatchObject({
          status: 400,
          code: 'invalid_request',
          errors: [{ path: '(body)', message: expect.stringContaining('nested') }],
        });
      else expect(res.status).toBe(202);
    }
    expect((await ps.call('GET', `/v1/jobs/${protectedRunning}`, { token: 'owner-token' })).status).toBe(200);
  });

  it('an answer given before a large body was read does not break the next request on the same connection', async () => {
    const big = Buffer.alloc(600 * 1024, 0x20);
    const cases: Array<[string, string, string | null]> = [
      ['POST', '/v1/jobs', null], // 401 before the body is read
      ['POST', '/nowhere', 'dev-token'], // 404
      ['PUT', '/v1/jobs', 'dev-token'], // 405
      ['POST', '/_control/reset', 'dev-token'], // control 401
    ];
    for (const [method, path, token] of cases) {
      for (let i = 0; i < 3; i++) {
        const early = await raw(ps.url, method, path, token ? { authorization: `Bearer ${token}` } : {}, big);
        expect(early.status).toBeGreaterThanOrEqual(400);
        expect(early.status).toBeLessThan(500);
        const next = await raw(ps.url, 'GET', `/v1/jobs/${protectedRunning}`, { authorization: 'Bearer owner-token' });
        expect(next.status).toBe(200);
      }
    }
  });

  it('odd request targets and Host headers are answered by the app as problems, with X-Request-ID, and journalled', async () => {
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/v1/jobs/\\..\\x', {}, 404],
      ['/\\', {}, 404],
      ['/v1/jobs/a\\b/cancel', {}, 404],
      ['/v1/jobs/x', { host: 'bad host!' }, 404],
      ['/v1/jobs/x', { host: '' }, 404],
    ];
    for (const [path, extra, status] of cases) {
      const res = await raw(ps.url, path.includes('cancel') ? 'POST' : 'GET', path, { authorization: 'Bearer dev-token', ...extra });
      expect(res.status, path).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const rid = res.headers['x-request-id'] as string;
      expect(rid).toMatch(/^req_/);
      expect(ps.provider.journal.all().some((e) => e.type === 'request' && e.request_id === rid)).toBe(true);
    }
  });

  it('non-UTF-8 bytes in a create body are answered without a 5xx', async () => {
    const body = Buffer.concat([
      Buffer.from('{"kind":"report","input":{"s":"'),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
      Buffer.from('"}}'),
    ]);
    const res = await ps.call('POST', '/v1/jobs', { headers: { 'idempotency-key': newKey(), 'content-type': 'application/json' }, body });
    expect(res.status).toBeLessThan(500);
  });
});
