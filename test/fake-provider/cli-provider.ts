/**
 * Test helper: `jobproof serve` from the built CLI as a real child process on a SQLite file (port 0), for the tests
 * that kill it. Builds dist/ first when it is missing or older than the sources the CLI runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');
export const CLI = join(REPO, 'dist', 'cli', 'main.js');

/** Build dist/ when it is missing or older than the sources the CLI runs. */
export function ensureBuilt(): void {
  const newest = (d: string): number =>
    readdirSync(d, { withFileTypes: true }).reduce(
      (m, e) => Math.max(m, e.isDirectory() ? newest(join(d, e.name)) : statSync(join(d, e.name)).mtimeMs),
      0,
    );
  const sources = ['cli', 'contract', 'fake-provider', 'lib', 'scenarios'].map((s) => newest(join(REPO, 'src', s)));
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= Math.max(...sources)) return;
  // tsc emits even when some unrelated file has type errors; what matters is that the CLI is there afterwards.
  spawnSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(REPO, 'tsconfig.json')], {
    cwd: REPO,
    stdio: 'ignore',
  });
  if (!existsSync(CLI)) throw new Error('npm run build did not produce dist/cli/main.js');
}

export interface CliProvider {
  proc: ChildProcess;
  url: string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** SIGKILL, and wait for the process to be gone. */
  kill(): Promise<void>;
}

/** `node dist/cli/main.js serve --port 0 --db FILE`, resolved once it says where it listens. */
export async function startCli(db: string): Promise<CliProvider> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', db], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let out = '';
  let err = '';
  proc.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    // A bound on a start that never comes (a loaded machine can take many seconds to load the CLI): not a wait.
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`CLI did not start within 60 s: ${out}${err}`));
    }, 60_000);
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.once('exit', (code) => reject(new Error(`CLI exited (${code}): ${out}${err}`)));
  });
  return {
    proc,
    url,
    exited,
    kill: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await exited;
    },
  };
}
