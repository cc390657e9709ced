import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (dist-bench/bench/src/common.js → ../../..). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const TMP = join(ROOT, 'bench', 'tmp');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function median(xs: readonly number[]): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!v.length) return NaN;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

/** Resident set size of a process, from /proc/<pid>/status (VmRSS), in bytes; NaN once it is gone. */
export function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

export function loadAverage(): [number, number, number] {
  return loadavg().map((x) => Math.round(x * 100) / 100) as [number, number, number];
}

export function machine() {
  const c = cpus();
  return { cores: c.length, cpu: c[0]?.model ?? 'unknown', node: process.version, platform: `${process.platform} ${process.arch}` };
}

export function log(line: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

/**
 * Start a child and wait for a line of its stdout (or stderr) to match `ready`; the rest of its output is drained
 * and kept (last 50 lines) for error messages.
 */
export function spawnUntil(
  cmd: string,
  args: string[],
  ready: RegExp,
  opts: { timeoutMs?: number; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcess; match: RegExpExecArray; tail: () => string }> {
  return new Promise((resolveP, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    let buf = '';
    let done = false;
    const timer = setTimeout(
      () => finish(new Error(`timed out waiting for ${ready} from ${cmd} ${args.join(' ')}\n${lines.join('\n')}`)),
      opts.timeoutMs ?? 60_000,
    );
    const finish = (err: Error | null, match?: RegExpExecArray) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        child.kill('SIGKILL');
        reject(err);
      } else resolveP({ child, match: match!, tail: () => lines.join('\n') });
    };
    const onData = (d: Buffer) => {
      buf += d.toString();
      for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        if (lines.length > 50) lines.shift();
        const m = ready.exec(line);
        if (m) finish(null, m);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (e) => finish(e));
    child.once('exit', (code, sig) => finish(new Error(`${cmd} exited (${code ?? sig}) before it was ready:\n${lines.join('\n')}`)));
  });
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the child has exited. */
export function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(t);
      r();
    });
    child.kill('SIGTERM');
  });
}

/** CPU time (user+system) a process has used, in ms, from /proc/<pid>/stat; NaN once it is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** Wait until a process is (nearly) idle: background work from the last load must not land on the next target's run. */
export async function waitIdle(pid: number, maxMs = 30_000): Promise<void> {
  const end = Date.now() + maxMs;
  let prev = cpuMsOf(pid);
  while (Date.now() < end) {
    await sleep(500);
    const cur = cpuMsOf(pid);
    if (!Number.isFinite(cur) || cur - prev < 25) return;
    prev = cur;
  }
}
