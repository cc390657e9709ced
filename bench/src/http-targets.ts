import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CLI, ROOT, rssOf, spawnUntil, stopChild, TMP } from './common.js';
import type { Stub } from './targets/stub.js';

/** One HTTP server under load, in its own process so that its RSS is its own. */
export interface HttpTarget {
  name: string;
  /** The last lines of its output (the provider's --trace-gc lines, for the soak). */
  tail?: () => string;
  url: string;
  pid: number;
  rss(): number;
  stop(): Promise<void>;
}

export const TOKEN = 'dev-token';

function wrap(name: string, url: string, child: ChildProcess): HttpTarget {
  return { name, url, pid: child.pid!, rss: () => rssOf(child.pid!), stop: () => stopChild(child) };
}

/**
 * The jobproof provider through its CLI (`serve --db FILE`): journal on every request, durable SQLite store.
 * `args` go to `serve` (e.g. --journal-max), `nodeFlags` to node (e.g. --trace-gc).
 */
export async function startProvider(db: string, name = 'jobproof', args: string[] = [], nodeFlags: string[] = []): Promise<HttpTarget> {
  if (db !== ':memory:') mkdirSync(dirname(db), { recursive: true });
  const { child, match, tail } = await spawnUntil(
    process.execPath,
    [...nodeFlags, CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--db', db, ...args],
    /listening on (http:\/\/\S+)/,
    { timeoutMs: 300_000 },
  );
  // --trace-gc floods the output with scavenges: keep the full-GC lines apart (the last few), for the soak.
  const fullGcs: string[] = [];
  child.stdout!.on('data', (d: Buffer) => {
    for (const m of String(d).matchAll(/[^\n]*Mark-Compact[^\n]*/g)) {
      fullGcs.push(m[0]);
      if (fullGcs.length > 5) fullGcs.shift();
    }
  });
  return { ...wrap(name, match[1]!, child), tail: () => `${tail()}\n${fullGcs.join('\n')}` };
}

function stubFile(stub: Stub): string {
  mkdirSync(TMP, { recursive: true });
  const f = join(TMP, 'stub.json');
  writeFileSync(f, JSON.stringify(stub));
  return f;
}

/** The ceiling: bare Hono on @hono/node-server answering the fixed body. */
export async function startBareHono(stub: Stub): Promise<HttpTarget> {
  const { child, match } = await spawnUntil(
    process.execPath,
    [join(ROOT, 'dist-bench/bench/src/targets/hono-target.js'), stubFile(stub)],
    /listening on (http:\/\/\S+)/,
  );
  return wrap('bare-hono', match[1]!, child);
}

export async function startMockttp(stub: Stub): Promise<HttpTarget> {
  const { child, match } = await spawnUntil(
    process.execPath,
    [join(ROOT, 'dist-bench/bench/src/targets/mockttp-target.js'), stubFile(stub)],
    /listening on (http:\/\/\S+)/,
  );
  return wrap('mockttp', match[1]!, child);
}

/** The standalone jar the npm `wiremock` package ships (build/wiremock-standalone-*.jar). */
export function wiremockJar(): string {
  const req = createRequire(import.meta.url);
  const pkgDir = dirname(req.resolve('wiremock/package.json'));
  const version = (req('wiremock/package.json') as { version: string }).version;
  const jar = join(pkgDir, 'build', `wiremock-standalone-${version}.jar`);
  if (!existsSync(jar)) throw new Error(`no jar at ${jar}`);
  return jar;
}

/** Java's version line, or why Java cannot be run. */
export async function javaVersion(): Promise<string> {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (r.error) throw new Error(`java not runnable: ${r.error.message}`);
  return (r.stderr || r.stdout).split('\n')[0]!.trim();
}

/**
 * WireMock standalone on the machine's Java, stubs installed through its admin API. `journal: false` runs it with
 * --no-request-journal. --disable-request-logging is WireMock's own advice for performance runs.
 */
export async function startWireMock(stub: Stub, journal: boolean): Promise<HttpTarget> {
  const root = join(TMP, `wiremock-${journal ? 'journal' : 'nojournal'}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'mappings'), { recursive: true });
  const args = [
    '-jar',
    wiremockJar(),
    '--port',
    '0',
    '--bind-address',
    '127.0.0.1',
    '--root-dir',
    root,
    '--disable-banner',
    '--disable-request-logging',
  ];
  if (!journal) args.push('--no-request-journal');
  const { child, match } = await spawnUntil('java', args, /^port:\s+(\d+)/, { timeoutMs: 120_000 });
  const url = `http://127.0.0.1:${match[1]}`;
  const mappings = [
    {
      request: { method: 'GET', urlPathPattern: '/v1/jobs/[^/]+' },
      response: { status: stub.status.status, body: stub.status.body, headers: { 'Content-Type': 'application/json' } },
    },
    {
      request: { method: 'POST', urlPath: '/v1/jobs' },
      response: { status: stub.create.status, body: stub.create.body, headers: { 'Content-Type': 'application/json' } },
    },
  ];
  for (const m of mappings) {
    const res = await fetch(`${url}/__admin/mappings`, {
      method: 'POST',
      body: JSON.stringify(m),
      headers: { 'content-type': 'application/json' },
    });
    if (!res.ok) throw new Error(`WireMock refused a mapping: ${res.status} ${await res.text()}`);
  }
  return wrap(journal ? 'wiremock-journal' : 'wiremock-nojournal', url, child);
}

/** Create `n` jobs on a provider over HTTP (sequential; for ids to read) and capture the bodies the stubs copy. */
export async function seedJobs(url: string, n: number): Promise<{ ids: string[]; stub: Stub }> {
  const ids: string[] = [];
  let create: Stub['create'] | undefined;
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${url}/v1/jobs`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'idempotency-key': `seed-${process.pid}-${Date.now()}-${i}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ kind: 'report', input: {} }),
    });
    const body = await res.text();
    if (res.status >= 300) throw new Error(`seeding a job: ${res.status} ${body}`);
    create ??= { status: res.status, body };
    ids.push((JSON.parse(body) as { job_id: string }).job_id);
  }
  const res = await fetch(`${url}/v1/jobs/${ids[0]}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const status = { status: res.status, body: await res.text() };
  if (res.status !== 200) throw new Error(`reading a job: ${res.status} ${status.body}`);
  return { ids, stub: { status, create: create! } };
}
