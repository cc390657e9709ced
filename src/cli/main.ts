#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { CliError } from './read-json-file.js';

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
  .showHelpAfterError();

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
  if (err instanceof CommanderError) process.exit(err.exitCode);
  process.stderr.write(`jobproof: unexpected error: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
