#!/usr/bin/env node
import { Command } from 'commander';
import { createRequire } from 'node:module';
import { exitOnCliError, exitQuietlyOnEpipe } from './cli-exit.js';
import { enableCompileCache } from './compile-cache.js';

const version = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

enableCompileCache();
exitQuietlyOnEpipe();

const program = new Command()
  .name('jobproof')
  .description('Prove that software driving long-running remote jobs survives the failures that actually happen.')
  .version(version)
  .showHelpAfterError()
  // We take over commander's exits so that every usage error is 2 (cli-exit.ts). Subcommands inherit this.
  .exitOverride();

// `jobproof client …` is started hundreds of times per certification run: load only what it needs.
const only = process.argv[2] === 'client' ? 'client' : undefined;
if (!only) {
  (await import('./serve-command.js')).registerServe(program);
  (await import('./scenarios-command.js')).registerScenarios(program);
  (await import('./certify-command.js')).registerCertify(program, version);
  (await import('./report-command.js')).registerReport(program);
  (await import('./profile-command.js')).registerProfile(program);
  (await import('../verify-provider/cli.js')).registerVerifyProvider(program);
}
(await import('../reference-client/cli.js')).registerClientCommands(program);

program.parseAsync(process.argv).catch(exitOnCliError);
