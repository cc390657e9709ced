import type { Command } from 'commander';
import { z } from 'zod';
import { createProvider, ProfileConflictError, serve } from '../fake-provider/index.js';
import { resolveTokensConfig, TokensConfigSchema, type BehaviorConfigInput, type FaultPlanInput } from '../contract/index.js';
import { tenantsWithoutSecret } from '../fake-provider/store/principals-persistence.js';
import { getScenario, listScenarios } from '../scenarios/index.js';
import { CliError, readJsonFile } from '../lib/read-json-file.js';
import { SchemaTooNewError } from '../lib/sqlite-migrations.js';
import type { Profile } from '../contract/profiles.js';
import { loadProfilesOrExit } from './profile-command.js';

interface ServeFlags {
  port: string;
  host: string;
  db: string;
  tokens?: string;
  scenario?: string;
  faults?: string;
  behavior?: string;
  openaiWebhookUrl?: string;
  control: boolean;
  journalMax?: string;
  dashboard: boolean;
  profile: string[];
}

function scenarioParts(name: string): { behavior: BehaviorConfigInput; faults: FaultPlanInput } {
  try {
    const s = getScenario(name);
    return { behavior: s.behavior, faults: s.faults };
  } catch {
    throw new CliError(
      `unknown scenario '${name}'. Known: ${listScenarios()
        .map((s) => s.name)
        .join(', ')}`,
    );
  }
}

function lookupScenario(name: string): { behavior: BehaviorConfigInput; faults: FaultPlanInput } | undefined {
  try {
    return scenarioParts(name);
  } catch {
    return undefined;
  }
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the fake async-job provider over HTTP (SQLite-backed; control API on)')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '4010')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--db <path>', "SQLite file for jobs, keys and journal (':memory:' for none)", '.jobproof/provider.db')
    .option('--tokens <file>', 'JSON file: {"tokens": {token: {tenant, subject, roles}}, "control_token", "webhook_secrets"}')
    .option('--scenario <name>', "start with a catalog scenario's provider-side behaviour and faults (see `jobproof scenarios`)")
    .option('--faults <file>', 'start with this fault plan (JSON, as PUT /_control/faults takes)')
    .option('--behavior <file>', 'start with this behaviour config (JSON, as PUT /_control/behavior takes)')
    .option('--openai-webhook-url <url>', "OpenAI dialect: send tenant acme's batch events (batch.completed, …) to this URL")
    .option('--no-control', 'do not serve the control API')
    .option('--journal-max <n>', 'keep only the newest N journal entries (long soaks; a judge needs the whole journal)')
    .option('--no-dashboard', 'do not serve the live dashboard at /_dashboard')
    .option(
      '--profile <file|name>',
      'also serve this API profile (a JSON file or a built-in name; repeatable)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .addHelpText('after', '\nExample:\n  npx jobproof serve --port 4010 --scenario lost-create-response\n')
    .action(async (flags: ServeFlags) => {
      const port = Number(flags.port);
      const journalMax = flags.journalMax === undefined ? null : Number(flags.journalMax.replace(/[_,]/g, ''));
      if (journalMax !== null && !(Number.isInteger(journalMax) && journalMax > 0))
        throw new CliError(`--journal-max must be a positive integer, got '${flags.journalMax}'`);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port must be 0-65535, got '${flags.port}'`);
      let tokens: z.input<typeof TokensConfigSchema> | undefined;
      if (flags.tokens) {
        const parsed = TokensConfigSchema.safeParse(readJsonFile(flags.tokens, 'tokens'));
        if (!parsed.success) throw new CliError(`tokens file ${flags.tokens}: ${z.prettifyError(parsed.error)}`);
        tokens = parsed.data;
        const missing = tenantsWithoutSecret(resolveTokensConfig(parsed.data));
        if (missing.length) {
          throw new CliError(
            `tokens file ${flags.tokens}: no webhook secret for tenant${missing.length > 1 ? 's' : ''} ${missing.map((t) => `'${t}'`).join(', ')}; ` +
              `add "webhook_secrets": {${missing.map((t) => `"${t}": "whsec_…"`).join(', ')}} (each tenant's webhooks are signed with its own key)`,
          );
        }
      }
      const fromScenario = flags.scenario ? scenarioParts(flags.scenario) : undefined;
      const behavior = flags.behavior ? (readJsonFile(flags.behavior, 'behavior') as BehaviorConfigInput) : fromScenario?.behavior;
      const faults = flags.faults ? (readJsonFile(flags.faults, 'fault plan') as FaultPlanInput) : fromScenario?.faults;
      const profiles = loadProfilesOrExit(flags.profile);
      let provider: ReturnType<typeof createProvider>;
      try {
        if (flags.openaiWebhookUrl !== undefined && !/^https?:\/\/\S+$/.test(flags.openaiWebhookUrl)) {
          throw new CliError(`--openai-webhook-url must be an http(s) URL, got '${flags.openaiWebhookUrl}'`);
        }
        const openaiWebhooks = flags.openaiWebhookUrl ? { acme: flags.openaiWebhookUrl } : undefined;
        provider = createProvider({
          db: flags.db,
          tokens,
          behavior,
          faults,
          control: flags.control,
          scenarioLookup: lookupScenario,
          openaiWebhooks,
          profiles,
          journalMax,
          backgroundCheckpoint: true,
          dashboard: flags.dashboard && {
            hosts: [flags.host],
            scenarios: { names: listScenarios().map((s) => s.name) },
          },
        });
      } catch (err) {
        if (err instanceof z.ZodError) throw new CliError(`invalid behaviour or fault plan: ${z.prettifyError(err)}`);
        if (err instanceof SchemaTooNewError) throw new CliError(err.message);
        if (err instanceof ProfileConflictError) throw new CliError(err.message);
        throw err;
      }
      const server = await serve(provider, { port, host: flags.host }).catch((err: Error) => {
        provider.close();
        throw new CliError(`cannot listen on ${flags.host}:${port}: ${err.message}`);
      });
      printBanner(server.url, provider.tokens, flags, profiles);
      const stop = async (signal: string) => {
        process.stdout.write(`\n${signal}: stopping; state kept in ${flags.db}\n`);
        await server.close();
        provider.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
}

/** Every dialect's base URL and a one-line SDK snippet (dialects.md: one server, one port). */
export function dialectLines(url: string, openaiWebhookUrl?: string): string[] {
  const rows: Array<[string, string, string]> = [
    ['native:', `${url}/v1`, 'jobproof API (docs/spec/provider-api.md)'],
    ['openai:', `${url}/openai/v1`, `new OpenAI({ apiKey: 'dev-token', baseURL: '${url}/openai/v1' })`],
    ['anthropic:', `${url}/anthropic/v1`, `new Anthropic({ apiKey: 'dev-token', baseURL: '${url}/anthropic' })`],
  ];
  const width = Math.max(...rows.map((r) => r[1].length)) + 2;
  const lines = rows.map(([name, base, snippet]) => `  ${name.padEnd(11)}${base.padEnd(width)}${snippet}`);
  if (openaiWebhookUrl)
    lines.push(`  openai batch events for tenant acme → ${openaiWebhookUrl} (Standard Webhooks, the tenant's whsec_ secret)`);
  return lines;
}

function printBanner(url: string, tokens: ReturnType<typeof createProvider>['tokens'], flags: ServeFlags, profiles: Profile[]): void {
  const lines = [
    `jobproof fake provider listening on ${url}`,
    `  store:     ${flags.db}`,
    flags.journalMax ? `  journal:   newest ${flags.journalMax} entries kept` : undefined,
    flags.scenario ? `  scenario:  ${flags.scenario}` : undefined,
    flags.faults ? `  faults:    ${flags.faults}` : undefined,
    `  tokens:    ${Object.entries(tokens.tokens)
      .map(([t, p]) => `${t} (${p.tenant}/${p.subject}, ${p.roles.join('+') || 'no roles'})`)
      .join(', ')}`,
    flags.control ? `  control:   ${url}/_control/… with Bearer ${tokens.control_token}` : '  control:   off',
    flags.dashboard ? `  dashboard: ${url}/_dashboard (changes need the control token)` : '  dashboard: off',
    '',
    ...dialectLines(url, flags.openaiWebhookUrl),
    ...profiles.map((p) => `  profile ${p.name}: ${url}${p.prefix}`),
    '',
    'Try:',
    `  curl -s -X POST ${url}/v1/jobs -H 'Authorization: Bearer dev-token' -H 'Idempotency-Key: my-first-job' \\`,
    `       -H 'Content-Type: application/json' -d '{"kind":"report","input":{"account":"acct_1"}}'`,
    '',
  ];
  process.stdout.write(lines.filter((l) => l !== undefined).join('\n') + '\n');
}
