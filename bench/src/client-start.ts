/**
 * What one start of the reference client costs, verb by verb (issue 13: certify starts it ~90 times per catalog and
 * calibrates its time scale on `show` of an unknown operation). Each command is run alternately, one right after the
 * other, against a real fake provider on loopback; wall time from spawn to exit, CPU (user + sys) from /usr/bin/time.
 *
 *   node dist-bench/bench/src/client-start.js [--rounds 9] [--commands main,bundle] [--verbs show-unknown,submit,…]
 *   node dist-bench/bench/src/client-start.js --calibrate [--rounds 3] [--lanes 4]   (certify's calibration, alternately)
 *
 * Commands: `main` = node dist/cli/main.js client, `bundle` = node dist/cli/client.cjs client, `bare` = node -e '',
 * or `NAME=FILE` for `node FILE client` (e.g. an older build kept under bench/tmp to compare with).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { calibrate } from '../../src/conformance/calibrate.js';
import { createProvider, serve } from '../../src/fake-provider/index.js';
import { CLI, loadAverage, median, ROOT } from './common.js';

const COMMANDS: Record<string, string[]> = {
  main: [CLI, 'client'],
  bundle: [join(ROOT, 'dist', 'cli', 'client.cjs'), 'client'],
};

/** The command names given, with any `NAME=FILE` added to COMMANDS. */
function commandNames(list: string): string[] {
  return list.split(',').map((c) => {
    const [name, file] = c.split('=');
    if (file) COMMANDS[name!] = [file, 'client'];
    return name!;
  });
}

interface Call {
  args: string[];
  stdin?: string;
  env?: NodeJS.ProcessEnv;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  exit: number;
}

const submit = (id: string) =>
  JSON.stringify({ operation_id: id, kind: 'bench', input: { n: 1 }, create_deadline_ms: 30_000, result_deadline_ms: 60_000 });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function run(prefix: string[], call: Call, env: NodeJS.ProcessEnv, timing: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', timing, process.execPath, ...prefix, ...call.args], {
      env: { ...env, ...call.env },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t;
      const [u, s] = readFileSync(timing, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      resolve({ wallMs, cpuMs: (u! + s!) * 1000, exit: code ?? -1 });
    });
    child.stdin.end(call.stdin ?? '');
  });
}

/** A verb: what to prepare in a fresh state directory (not timed), then the timed call. */
interface Verb {
  prepare: (id: string) => Call[];
  timed: (id: string) => Call;
}

const VERBS: Record<string, Verb> = {
  'show-unknown': { prepare: () => [], timed: () => ({ args: ['show', 'op_unknown'] }) },
  submit: { prepare: () => [], timed: (id) => ({ args: ['submit'], stdin: submit(id) }) },
  show: { prepare: (id) => [{ args: ['submit'], stdin: submit(id) }], timed: (id) => ({ args: ['show', id] }) },
  cancel: {
    prepare: (id) => [{ args: ['submit'], stdin: submit(id) }],
    timed: (id) => ({ args: ['cancel', id], stdin: JSON.stringify({ actor: 'bench', reason: 'bench', cancel_deadline_ms: 30_000 }) }),
  },
  // One operation from create to its result (jobs take 100 ms), listening for webhooks as certify --webhooks runs it.
  work: { prepare: (id) => [{ args: ['submit'], stdin: submit(id) }], timed: () => ({ args: ['work'] }) },
  'audit-verify': { prepare: (id) => [{ args: ['submit'], stdin: submit(id) }], timed: () => ({ args: ['audit', 'verify'] }) },
  'task-show': { prepare: () => [], timed: () => ({ args: ['task', 'show', 'task_unknown'] }) },
  'task-submit': {
    prepare: () => [],
    timed: (id) => ({
      args: ['task', 'submit'],
      stdin: JSON.stringify({ task_op_id: id, object_ref: 'doc-1', object_version: 1, input: {}, deadline_ms: 60_000 }),
    }),
  },
};

const shellCommand = (name: string) => [process.execPath, ...COMMANDS[name]!].map((a) => `'${a}'`).join(' ');

/** certify's calibration (`lanes` starts of `show` at once, three rounds) for each command in turn. */
async function calibrations(commands: string[], rounds: number, lanes: number): Promise<void> {
  console.log(`calibration, ${lanes} lanes; load average before ${loadAverage().join(' ')}`);
  console.log('round\tcommand\tclient start ms\tfactor');
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? [...commands].reverse() : commands) {
      const c = await calibrate(shellCommand(name), lanes);
      console.log(`${r + 1}\t${name}\t${c.clientStartMs}\t${c.factor}`);
    }
  }
  console.log(`load average after ${loadAverage().join(' ')}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' },
      commands: { type: 'string', default: 'main,bundle' },
      verbs: { type: 'string', default: Object.keys(VERBS).join(',') },
      calibrate: { type: 'boolean', default: false },
      lanes: { type: 'string', default: '4' },
    },
  });
  const commands = commandNames(values.commands);
  if (values.calibrate) return calibrations(commands, Number(values.rounds ?? 3), Number(values.lanes));
  const rounds = Number(values.rounds ?? 9);
  const verbs = values.verbs.split(',');
  const provider = createProvider({ db: ':memory:', behavior: { default: { duration_ms: 100 } } });
  const server = await serve(provider, { port: 0, host: '127.0.0.1' });
  const dir = mkdtempSync(join(tmpdir(), 'jobproof-client-start-'));
  const timing = join(dir, 'time.txt');
  const samples = new Map<string, Sample[]>();
  const before = loadAverage();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const verb of verbs) {
        // Alternate which command goes first, so that neither always runs right after the other's disk writes.
        const order = r % 2 ? [...commands].reverse() : commands;
        for (const name of order) {
          const prefix = name === 'bare' ? ['-e', ''] : COMMANDS[name]!;
          const id = `op_${name}_${verb}_${r}`;
          const env: NodeJS.ProcessEnv = {
            ...process.env,
            JOBPROOF_PROVIDER_URL: `http://127.0.0.1:${server.port}`,
            JOBPROOF_TOKEN: 'dev-token',
            JOBPROOF_STATE: join(dir, id),
            JOBPROOF_WORKER_ID: 'bench',
            JOBPROOF_WEBHOOK_PORT: String(await freePort()),
            JOBPROOF_WEBHOOK_SECRET: provider.tokens.webhook_secrets.acme,
          };
          if (name !== 'bare') for (const c of VERBS[verb]!.prepare(id)) await run(prefix, c, env, timing);
          const s = await run(prefix, name === 'bare' ? { args: [] } : VERBS[verb]!.timed(id), env, timing);
          const key = `${verb}\t${name}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      }
    }
  } finally {
    await server.close();
    provider.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`rounds ${rounds}; load average before ${before.join(' ')}, after ${loadAverage().join(' ')}`);
  console.log('verb\tcommand\twall ms (median)\tCPU ms (median)\texit codes');
  for (const [key, xs] of samples) {
    const exits = [...new Set(xs.map((x) => x.exit))].join('/');
    console.log(`${key}\t${Math.round(median(xs.map((x) => x.wallMs)))}\t${Math.round(median(xs.map((x) => x.cpuMs)))}\t${exits}`);
  }
}

await main();
