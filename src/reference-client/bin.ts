#!/usr/bin/env node
import { Command } from 'commander';
import { registerClientCommands } from './cli.js';

/** Stand-alone entry for the reference client until `jobproof client …` is wired into src/cli/main.ts. */
const program = new Command().name('jobproof-client').showHelpAfterError();
registerClientCommands(program);
await program.parseAsync(process.argv);
