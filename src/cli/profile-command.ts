import type { Command } from 'commander';
import { builtinProfileNames, describeLoad, loadProfile } from '../contract/profile-files.js';
import { profileJsonSchema, type Profile } from '../contract/profiles.js';
import { CliError } from '../lib/read-json-file.js';
import { initFromFile, writeDurably } from '../profile-init/index.js';

/** Load each profile (file or built-in name) or refuse them all with every problem located: a usage error, exit 2. */
export function loadProfilesOrExit(args: readonly string[]): Profile[] {
  const out: Profile[] = [];
  const problems: string[] = [];
  for (const a of args) {
    const l = loadProfile(a);
    if (l.ok) out.push(l.profile);
    else problems.push(describeLoad(l));
  }
  if (problems.length) throw new CliError(`profile refused:\n${problems.join('\n')}`);
  return out;
}

/** `jobproof profile check FILE…`, `profile list`, `profile schema`. */
export function registerProfile(program: Command): void {
  const cmd = program.command('profile').description('API profiles: describe any async job API in a file (docs/profiles.md)');
  cmd
    .command('check <files...>')
    .description('validate profiles (YAML or JSON files, or built-in names); print every mistake with its line and how to mend it')
    .addHelpText(
      'after',
      '\nExit: 0 every profile is valid, 2 a profile has a mistake (or cannot be read).\n\nExample:\n  npx jobproof profile check profiles/google-lro.json\n',
    )
    .action((files: string[]) => {
      let bad = 0;
      for (const f of files) {
        const l = loadProfile(f);
        if (l.ok) {
          process.stdout.write(`${l.file}: ok — profile '${l.profile.name}' served at ${l.profile.prefix}\n`);
        } else {
          bad++;
          process.stderr.write(`${describeLoad(l)}\n`);
        }
      }
      if (bad) {
        process.stderr.write(`jobproof: ${bad} of ${files.length} profile${files.length > 1 ? 's' : ''} refused\n`);
        process.exit(2);
      }
    });
  cmd
    .command('list')
    .description('the built-in profiles shipped with jobproof')
    .action(() => {
      for (const name of builtinProfileNames()) {
        const l = loadProfile(name);
        process.stdout.write(
          l.ok ? `${name.padEnd(14)} ${l.profile.prefix.padEnd(26)} ${l.profile.description ?? ''}\n` : `${name}: invalid\n`,
        );
      }
    });
  cmd
    .command('schema')
    .description('print the profile JSON Schema (also served at GET /_profiles/schema.json)')
    .action(() => {
      process.stdout.write(`${JSON.stringify(profileJsonSchema(), null, 2)}\n`);
    });
  cmd
    .command('init')
    .description('draft a profile from an OpenAPI 3.x document (YAML or JSON); each guess is marked for a person to confirm')
    .requiredOption('--from <openapi>', 'the OpenAPI 3.x document of the API')
    .option('--out <file>', 'write the draft here (default: standard output, the report on standard error)')
    .option('--name <name>', "the profile's name (default: from the document's title)")
    .addHelpText(
      'after',
      '\nExit: 0 drafted, 2 the document cannot be read, is not OpenAPI 3.x, or has no async create route.\n\nExample:\n  npx jobproof profile init --from openapi.yaml --out my-api.json\n',
    )
    .action((opts: { from: string; out?: string; name?: string }) => {
      const r = initFromFile(opts.from, opts.name);
      if (!r.ok) throw new CliError(r.message);
      if (!opts.out) process.stdout.write(r.text);
      else
        try {
          writeDurably(opts.out, r.text);
        } catch (err) {
          throw new CliError(`cannot write ${opts.out}: ${(err as Error).message}`);
        }
      (opts.out ? process.stdout : process.stderr).write(`${opts.out ? `wrote ${opts.out}: ` : ''}${r.report}`);
    });
  cmd.hook('preAction', (_this, action) => {
    if (action.name() === 'check' && action.args.length === 0) throw new CliError('profile check needs a file');
  });
}
