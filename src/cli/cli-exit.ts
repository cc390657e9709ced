import { CliError } from '../lib/read-json-file.js';

// `jobproof scenarios | head` closes our stdout early; that is not an error.
export function exitQuietlyOnEpipe(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/**
 * Commander's own exits under `exitOverride()` (usage errors, --help, --version) throw a CommanderError: a `commander.*`
 * code and the exit code it meant. Told by that shape rather than `instanceof`, so that the bundled client
 * (client-main.ts) need not load commander for a call it does not parse with it.
 */
function commanderExitCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; exitCode?: unknown } | null;
  return err instanceof Error && typeof e?.code === 'string' && e.code.startsWith('commander.') && typeof e.exitCode === 'number'
    ? e.exitCode
    : undefined;
}

/**
 * The end of a failed parse (the program runs with `exitOverride()`): commander exits 1 on a bad flag or an unknown
 * command, the same code as "not certified", so every usage error becomes 2 (GUIDE: 0 success, 1 check failed,
 * 2 usage); --help and --version end with 0.
 */
export function exitOnCliError(err: unknown): never {
  if (err instanceof CliError) {
    process.stderr.write(`jobproof: ${err.message}\n`);
    process.exit(2);
  }
  const commanderExit = commanderExitCode(err);
  if (commanderExit !== undefined) process.exit(commanderExit === 0 ? 0 : 2);
  process.stderr.write(`jobproof: unexpected error: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
}
