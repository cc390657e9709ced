import { plainCall, registerClientCommands } from '../reference-client/cli.js';
import { exitOnCliError, exitQuietlyOnEpipe } from './cli-exit.js';
import { enableCompileCache } from './compile-cache.js';

/**
 * `jobproof client …` and nothing else: the entry of the bundle dist/cli/client.cjs (scripts/bundle-client.mjs) that
 * certify starts ~90 times per catalog. Same arguments as `main.js` (`client show ID`), same exits; CommonJS
 * output, so no top-level await here. A plain call (a verb and its arguments) runs its action straight away: loading
 * and setting up commander was a tenth of a start. Anything else (options, --help, a usage error) goes through
 * commander, with the same actions.
 */
enableCompileCache();
exitQuietlyOnEpipe();
const plain = process.argv[2] === 'client' ? plainCall(process.argv.slice(3)) : undefined;
if (plain) plain().catch(exitOnCliError);
else
  import('commander')
    .then(({ Command }) => {
      const program = new Command().name('jobproof').showHelpAfterError().exitOverride();
      registerClientCommands(program);
      return program.parseAsync(process.argv);
    })
    .catch(exitOnCliError);
