import { Command } from 'commander';
import { registerClientCommands } from '../reference-client/cli.js';
import { exitOnCliError, exitQuietlyOnEpipe } from './cli-exit.js';

/**
 * `jobproof client …` and nothing else: the entry of the one-file bundle dist/cli/client.cjs (scripts/bundle-client.mjs)
 * that certify starts ~90 times per catalog. Same arguments as `main.js` (`client show ID`), same exits; CommonJS
 * output, so no top-level await here.
 */
exitQuietlyOnEpipe();
const program = new Command().name('jobproof').showHelpAfterError().exitOverride();
registerClientCommands(program);
program.parseAsync(process.argv).catch(exitOnCliError);
