/**
 * `jobproof profile init --from openapi.yaml` on two real, public OpenAPI documents (test/fixtures/openapi/*): the
 * draft it writes is refused by `profile check` while its guesses are unconfirmed (each at its field's line), is
 * accepted once a person — here the test — has confirmed them, and is then served: a create and a status read
 * answer in the API's own shape. The built CLI: run `npm run build` first.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIRM_KEY, type ConfirmEntry } from '../../src/contract/profile-confirm.js';

const REPO = join(import.meta.dirname, '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');
const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: REPO, encoding: 'utf8' });
const dir = mkdtempSync(join(tmpdir(), 'jobproof-profile-init-'));
const fixture = (name: string) => join(REPO, 'test/fixtures/openapi', name, 'openapi.yaml');

interface Case {
  fixture: string;
  name: string;
  /** Guesses the draft must have made (by path), and what they said. */
  guesses: Record<string, RegExp>;
  /** A create body the API takes, and the state value a new job shows. */
  body: Record<string, unknown>;
  queued: string;
  create: { path: string; status: number };
  auth: Served['auth'];
}

const CASES: Case[] = [
  {
    fixture: 'mistral-batch',
    name: 'mistral-ai-api',
    guesses: {
      'view.status': /the field status holds the job's state/,
      'state.values': /the final values are SUCCESS, FAILED, TIMEOUT_EXCEEDED, CANCELLED/,
      times: /unix seconds/,
      idempotency: /no idempotency key/,
      'find.filters': /paging the whole list/,
    },
    body: { endpoint: '/v1/chat/completions', model: 'mistral-small-latest', requests: [] },
    queued: 'QUEUED',
    create: { path: '/v1/batch/jobs', status: 200 },
    auth: { type: 'bearer' },
  },
  {
    fixture: 'assemblyai-transcripts',
    name: 'assemblyai-api',
    guesses: {
      'view.status': /the field status holds the job's state/,
      'state.values': /the final values are completed, error/,
      'state.serve_as.cancelled': /shown as "error"/,
      'cancel.route': /DELETE \/v2\/transcript\/\{id\} cancels the job/,
      'webhooks.events': /job\.succeeded as "completed"/,
      idempotency: /no idempotency key/,
    },
    body: { audio_url: 'https://assembly.ai/wildfires.mp3', speech_models: ['universal'] },
    queued: 'queued',
    create: { path: '/v2/transcript', status: 200 },
    auth: { type: 'header', name: 'Authorization' },
  },
];

function lineOf(file: string, key: string): number {
  return (
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.trimStart().startsWith(`"${key}"`)) + 1
  );
}

interface Served {
  prefix: string;
  read: { route: { path: string } };
  auth: { type: string; name?: string };
}

/** jobproof's dev token, sent the way the drafted profile's auth says (AssemblyAI: the bare key in Authorization). */
const credentials = (auth: Served['auth']): Record<string, string> =>
  auth.type === 'header' ? { [auth.name!.toLowerCase()]: 'dev-token' } : { authorization: 'Bearer dev-token' };

async function serveAndCreate(file: string, c: Case, profile: Served) {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', ':memory:', '--profile', file], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let banner = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (chunk: Buffer) => {
      banner += chunk.toString();
      if (banner.includes('Try:')) resolve();
    });
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${banner}`)));
  });
  try {
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    expect(banner).toContain(`  profile ${c.name}: ${url}${profile.prefix}`);
    const headers = { ...credentials(profile.auth), 'content-type': 'application/json' };
    const res = await fetch(`${url}${profile.prefix}${c.create.path}`, { method: 'POST', headers, body: JSON.stringify(c.body) });
    expect(res.status).toBe(c.create.status);
    const job = (await res.json()) as { id: string; status: string };
    expect(job.status).toBe(c.queued);
    const read = await fetch(`${url}${profile.prefix}${profile.read.route.path.replace('{id}', job.id)}`, { headers });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(job.id);
  } finally {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
}

describe('jobproof profile init --from openapi', () => {
  it.each(CASES)('$fixture: drafts, is refused until its guesses are confirmed, then accepted and served', async (c) => {
    const out = join(dir, `${c.fixture}.json`);
    const init = run(['profile', 'init', '--from', fixture(c.fixture), '--out', out]);
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    const draft = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown> & { [CONFIRM_KEY]: ConfirmEntry[] };
    const guesses = draft[CONFIRM_KEY];
    expect(draft.name).toBe(c.name);
    expect(draft.auth).toEqual(c.auth);
    // It says which guesses it made: each one on stdout, and each one in the file.
    expect(init.stdout).toContain(`wrote ${out}: profile '${c.name}' drafted`);
    for (const g of guesses) expect(init.stdout).toContain(`  ${g.path}: ${g.guess} — ${g.why}`);
    for (const [path, said] of Object.entries(c.guesses)) expect(guesses.find((g) => g.path === path && said.test(g.guess))).toBeDefined();

    const refused = run(['profile', 'check', out]);
    expect(refused.status).toBe(2);
    const unconfirmed = refused.stderr.split('\n').filter((l) => l.includes('unconfirmed guess'));
    expect(unconfirmed).toHaveLength(guesses.length);
    // Each at the guessed field's line: the state guess at the view's "status".
    expect(refused.stderr).toContain(`${out}:${lineOf(out, 'status')}:5 view.status: unconfirmed guess: the field status holds`);
    expect(run(['serve', '--port', '0', '--db', ':memory:', '--profile', out]).status).toBe(2);

    // A person confirms each guess (here: accepts it as drafted) by deleting it from the list.
    const { [CONFIRM_KEY]: _confirmed, ...confirmed } = draft;
    writeFileSync(out, `${JSON.stringify(confirmed, null, 2)}\n`);
    const accepted = run(['profile', 'check', out]);
    expect(accepted.stderr).toBe('');
    expect(accepted.status).toBe(0);

    await serveAndCreate(out, c, confirmed as never);
  });

  it('writes the draft to standard output and the report to standard error without --out', () => {
    const r = run(['profile', 'init', '--from', fixture('mistral-batch'), '--name', 'mistral-batch']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe('mistral-batch');
    expect(r.stderr).toMatch(/guesses to confirm/);
  });

  it('refuses an --out it cannot write (exit 2)', () => {
    const r = run(['profile', 'init', '--from', fixture('mistral-batch'), '--out', join(dir, 'no-such-dir', 'draft.json')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot write .*no-such-dir/);
  });

  it.each([
    ['an unreadable file', () => join(dir, 'absent.yaml'), /cannot read .*absent\.yaml/],
    [
      'a Swagger 2.0 document',
      () => doc('swagger.json', { swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }),
      /Swagger 2\.0 .*OpenAPI 3\.x/,
    ],
    ['a document that is not YAML', () => doc('broken.yaml', 'openapi: [3.1\n  paths: {'), /not YAML or JSON/],
    [
      'an OpenAPI 3 document without an async create',
      () =>
        doc('sync.json', {
          openapi: '3.1.0',
          info: { title: 't', version: '1' },
          paths: { '/v1/ping': { get: { responses: { '200': { description: 'ok' } } } } },
        }),
      /no asynchronous create route found/,
    ],
  ])('refuses %s with a clear message (exit 2)', (_what, file, message) => {
    const r = run(['profile', 'init', '--from', file()]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

function doc(name: string, content: unknown): string {
  const f = join(dir, name);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}
