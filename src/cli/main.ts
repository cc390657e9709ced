#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { registerCertify } from './certify-command.js';
import { registerClientCommands } from '../reference-client/cli.js';
import { registerScenarios } from './scenarios-command.js';
import { registerServe } from './serve-command.js';
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

registerServe(program);
registerScenarios(program);
registerCertify(program, version);
registerClientCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CliError) {
    process.stderr.write(`jobproof: ${err.message}\n`);
    process.exit(2);
  }
  if (err instanceof CommanderError) process.exit(err.exitCode);
  process.stderr.write(`jobproof: unexpected error: ${(err as Error)?.stack ?? err}\n`);
  process.exit(1);
});
