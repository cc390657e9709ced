import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Client commands run through `sh -c "exec CMD sub"`: a command line like `python3 client.py` works as typed, and
 * `exec` makes the client itself the child, so SIGKILL and SIGSTOP reach it and not a shell in between.
 */
export function spawnClient(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return spawn('/bin/sh', ['-c', `exec ${command} ${quoted}`], { env, stdio: ['pipe', 'pipe', 'pipe'] });
}

export interface CallResult {
  exit: number;
  stdout: string;
  stderr: string;
}

/** Run one short client call (`submit`, `cancel`, `show`) to its end, with stdin, bounded in time. */
export function callClient(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin: string | null,
  timeoutMs = 15_000,
): Promise<CallResult> {
  return new Promise((resolve) => {
    const child = spawnClient(command, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[jobproof] ${args[0]} took longer than ${timeoutMs} ms; killed`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      stderr += `\n[jobproof] cannot start client: ${err.message}`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exit: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(stdin ?? '');
  });
}
