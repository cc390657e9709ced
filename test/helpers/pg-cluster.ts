import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throw-away PostgreSQL cluster for tests: initdb + pg_ctl on a temporary directory and a free loopback port,
 * trust auth for one user, nothing shared with any system cluster. initdb refuses to run as root, so as root the
 * binaries run as the `postgres` user (created by Debian's package) on a directory it owns.
 */
export interface PgCluster {
  url: string;
  dir: string;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  destroy(): void;
}

export const PG_INSTALL_HINT =
  'PostgreSQL server binaries (initdb, pg_ctl) were not found. Install them (Debian/Ubuntu: `sudo apt-get install -y postgresql`; ' +
  'macOS: `brew install postgresql`), or point the tests at a server with JOBPROOF_TEST_PG=postgres://user@host:port/db, ' +
  'or skip the PostgreSQL tests explicitly with JOBPROOF_TEST_PG=skip.';

export function findPgBin(): string | null {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return join(onPath, '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startCluster(): Promise<PgCluster> {
  const bin = findPgBin();
  if (!bin) throw new Error(PG_INSTALL_HINT);
  const isRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'jp-pg-'));
  const data = join(dir, 'data');
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const cmd = isRoot ? 'runuser' : join(bin, tool);
    const argv = isRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'jobproof', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  // fsync off: a test cluster is thrown away; a restart test stops the server process, not the machine.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  start();
  let stopped = false;
  return {
    url: `postgres://jobproof@127.0.0.1:${port}/postgres`,
    dir,
    start: () => {
      start();
      stopped = false;
    },
    stop: (mode = 'fast') => {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      stopped = true;
    },
    destroy: () => {
      if (!stopped) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          /* already down */
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
