#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { CliError } from '../lib/read-json-file.js';

const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

// `jobproof scenarios | head` closes our stdout early; that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command()
  .name('jobproof')
  .description('Prove that software driving long-running remote jobs survives the failures that actually happen.')
  .version(version)
  .showHelpAfterError()
  // Commander exits 1 on a bad flag or an unknown command, the same code as "not certified"; we take over its exits
  // so that every usage error is 2 (GUIDE: 0 success, 1 check failed, 2 usage). Subcommands inherit this.
  .exitOverride();

// `jobproof client …` is started hundreds of times per certification run: load only what it needs.
const only = process.argv[2] === 'client' ? 'client' : undefined;
if (!only) {
  (await import('./serve-command.js')).registerServe(program);
  (await import('./scenarios-command.js')).registerScenarios(program);
  (await import('./certify-command.js')).registerCertify(program, version);
  (await import('./report-command.js')).registerReport(program);
  (await import('../verify-provider/cli.js')).registerVerifyProvider(program);
}
(await import('../reference-client/cli.js')).registerClientCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CliError) {
    process.stderr.write(`jobproof: ${err.message}\n`);
    process.exit(2);
  }
  // --help and --version end with code 0; every other commander error is a usage error (its message is printed).
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : 2);
  process.stderr.write(`jobproof: unexpected error: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
