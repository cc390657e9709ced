/**
 * The bundled reference client (dist/cli/client.cjs and its chunks, written by `npm run build`) is what certify runs by default;
 * here every verb of it runs as a child process against a real fake provider on loopback, with the exit codes of
 * client-protocol.md (0 done, 2 refused, 3 changed request). `task work` runs through the bundle in
 * test/conformance/tasks/process.test.ts, the catalog in test/conformance/runner/process-reference.test.ts. Run
 * `npm run build` first.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceCommand } from '../../src/cli/reference-command.js';
import { callClient } from '../../src/conformance/runner/process/spawn-client.js';
import { createProvider, serve, type Provider, type RunningServer } from '../../src/fake-provider/index.js';
import { schemaForState } from '../../src/reference-client/store/pg-pool.js';
import { dropSchema, pgUrl } from '../helpers/pg.js';

const DIST_CLI = join(import.meta.dirname, '..', '..', 'dist', 'cli');
const BUNDLE = join(DIST_CLI, 'client.cjs');
const op = (id: string, n = 1) =>
  JSON.stringify({ operation_id: id, kind: 'report', input: { n }, create_deadline_ms: 30_000, result_deadline_ms: 60_000 });
const task = (id: string) =>
  JSON.stringify({ task_op_id: id, object_ref: 'invoice-1', object_version: 1, input: { a: 1 }, deadline_ms: 60_000 });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

let provider: Provider;
let server: RunningServer;
let dir: string;
const command = () => referenceCommand(DIST_CLI);

beforeAll(async () => {
  if (!existsSync(BUNDLE)) throw new Error('dist/cli/client.cjs is missing: run `npm run build` first');
  provider = createProvider({ behavior: { default: { duration_ms: 50 } } });
  server = await serve(provider, { port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'jp-client-bundle-'));
});

afterAll(async () => {
  await server?.close();
  provider?.close();
  rmSync(dir, { recursive: true, force: true });
});

function envFor(state: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    JOBPROOF_PROVIDER_URL: server.url,
    JOBPROOF_TOKEN: 'dev-token',
    JOBPROOF_STATE: join(dir, state),
    JOBPROOF_WORKER_ID: 'bundle-test',
    ...extra,
  };
  for (const k of ['JOBPROOF_CLIENT_DB', 'JOBPROOF_WEBHOOK_PORT', 'JOBPROOF_WEBHOOK_SECRET', 'JOBPROOF_DIALECT'])
    if (!(k in extra)) delete env[k];
  return env;
}

describe('referenceCommand', () => {
  it('runs the bundle when the build wrote it, main.js client otherwise', () => {
    expect(command()).toBe(`'${process.execPath}' '${BUNDLE}' 'client'`);
    const empty = mkdtempSync(join(tmpdir(), 'jp-no-bundle-'));
    try {
      expect(referenceCommand(empty)).toBe(`'${process.execPath}' '${join(empty, 'main.js')}' 'client'`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the bundle keeps the notices of the code it copies', () => {
  it('client-licenses.txt lists each bundled package with its licence text; the entry names the file', () => {
    expect(readFileSync(BUNDLE, 'utf8').split('\n', 1)[0]).toContain('client-licenses.txt');
    const text = readFileSync(join(DIST_CLI, 'client-licenses.txt'), 'utf8');
    const listed = [...text.matchAll(/^(@?[a-z0-9-]+(?:\/[a-z0-9-]+)?)@\d+\.\d+\.\d+ \(/gm)].map((m) => m[1]);
    // What decision 024 bundles on purpose; the list is computed from the chunks' module ids, so more may follow.
    expect(listed).toEqual(expect.arrayContaining(['zod', 'commander', 'better-sqlite3']));
    for (const block of text.split(/^(?=@?[a-z0-9-]+(?:\/[a-z0-9-]+)?@\d)/m).slice(1))
      expect(block, block.slice(0, 80)).toMatch(/copyright|public domain|unlicense/i);
  });
});

describe('the bundled reference client, verb by verb (real processes, loopback HTTP)', () => {
  it('submit, show, cancel and work (with webhooks) exit 0; a changed request 3; unknown ids and bad input 2', async () => {
    const env = envFor('jobs', {
      JOBPROOF_WEBHOOK_PORT: String(await freePort()),
      JOBPROOF_WEBHOOK_SECRET: provider.tokens.webhook_secrets.acme!,
    });
    const call = (args: string[], stdin: string | null = null) => callClient(command(), args, env, stdin);

    expect((await call(['show', 'op_none'])).exit).toBe(2);
    expect((await call(['submit'], 'not json')).exit).toBe(2);
    // A schema's refusal is worded by zod, loaded only then (a plain start does not load it).
    const bad = await call(['submit'], JSON.stringify({ operation_id: 'op_bad' }));
    expect(bad.exit).toBe(2);
    expect(bad.stderr).toMatch(/jobproof client: .*kind/s);
    expect((await call(['submit'], op('op_1'))).exit).toBe(0);
    expect((await call(['submit'], op('op_1'))).exit).toBe(0);
    const changed = await call(['submit'], op('op_1', 2));
    expect(changed.exit).toBe(3);
    expect(changed.stderr).not.toBe('');
    expect((await call(['submit'], op('op_2'))).exit).toBe(0);
    expect((await call(['cancel', 'op_2'], JSON.stringify({ actor: 'me', reason: 'test', cancel_deadline_ms: 30_000 }))).exit).toBe(0);
    expect((await call(['cancel', 'op_none'], JSON.stringify({ actor: 'me', reason: 'test', cancel_deadline_ms: 30_000 }))).exit).toBe(2);

    const work = await call(['work'], null);
    expect(work.stderr).toBe('');
    expect(work.exit).toBe(0);
    const one = JSON.parse((await call(['show', 'op_1'])).stdout);
    expect(one).toMatchObject({ operation_id: 'op_1', state: 'succeeded' });
    // The worker gave its webhook listener's URL on the create: the provider's deliveries went there.
    await provider.idle();
    const hooks = provider.journal.all().filter((e) => e.type === 'webhook');
    expect(hooks.map((e) => e.url)).toContain(`http://127.0.0.1:${env.JOBPROOF_WEBHOOK_PORT}/`);
    expect(JSON.parse((await call(['show', 'op_2'])).stdout).state).toBe('cancelled');

    const audit = await call(['audit', 'verify']);
    expect(audit.exit).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ ok: true });
    // What is not a plain call goes through commander: a usage error, --help, an option before the verb.
    expect((await call(['no-such-verb'])).exit).toBe(2);
    expect((await call(['show'])).exit).toBe(2);
    const help = await call(['--help']);
    expect(help.exit).toBe(0);
    expect(help.stdout).toContain('JOBPROOF_STATE');
  });

  it('task submit and show: 0; a changed task request 3; an unknown task 2', async () => {
    const env = envFor('tasks');
    const call = (args: string[], stdin: string | null = null) => callClient(command(), args, env, stdin);
    expect((await call(['task', 'show', 't_none'])).exit).toBe(2);
    expect((await call(['task', 'submit'], task('t_1'))).exit).toBe(0);
    expect((await call(['task', 'submit'], task('t_1'))).exit).toBe(0);
    expect((await call(['task', 'submit'], task('t_1').replace('"a":1', '"a":2'))).exit).toBe(3);
    expect((await call(['task', 'submit'], JSON.stringify({ task_op_id: 't_2' }))).exit).toBe(2);
    const shown = await call(['task', 'show', 't_1']);
    expect(shown.exit).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ task_op_id: 't_1', object_ref: 'invoice-1' });
  });

  it.runIf(pgUrl())(
    'keeps operations in PostgreSQL with JOBPROOF_CLIENT_DB and works them (pg is required from outside the bundle)',
    async () => {
      const url = pgUrl()!;
      const env = envFor('pg', { JOBPROOF_CLIENT_DB: url });
      try {
        expect((await callClient(command(), ['submit'], env, op('op_pg'))).exit).toBe(0);
        // --db on the command line (commander's path) names the same store as JOBPROOF_CLIENT_DB.
        const shown = await callClient(command(), ['--db', url, 'show', 'op_pg'], { ...env, JOBPROOF_CLIENT_DB: '' }, null);
        expect(shown.stderr).toBe('');
        expect(JSON.parse(shown.stdout)).toMatchObject({ operation_id: 'op_pg', state: 'create_pending' });
        const work = await callClient(command(), ['work'], env, null);
        expect(work.stderr).toBe('');
        expect(work.exit).toBe(0);
        expect(JSON.parse((await callClient(command(), ['show', 'op_pg'], env, null)).stdout).state).toBe('succeeded');
      } finally {
        await dropSchema(url, schemaForState(env.JOBPROOF_STATE!));
      }
    },
  );
});
