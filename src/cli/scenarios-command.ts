import type { Command } from 'commander';
import { getScenario, listScenarios } from '../scenarios/index.js';
import { CliError } from '../lib/read-json-file.js';

export function registerScenarios(program: Command): void {
  program
    .command('scenarios [name]')
    .description('list the fault scenario catalog, or print one scenario as JSON')
    .option('--json', 'print the list as JSON')
    .action((name: string | undefined, flags: { json?: boolean }) => {
      if (name) {
        try {
          process.stdout.write(JSON.stringify(getScenario(name), null, 2) + '\n');
        } catch {
          throw new CliError(`unknown scenario '${name}'; run \`jobproof scenarios\` for the list`);
        }
        return;
      }
      const list = listScenarios();
      if (flags.json) {
        process.stdout.write(JSON.stringify(list, null, 2) + '\n');
        return;
      }
      const width = Math.max(...list.map((s) => s.name.length));
      for (const s of list) {
        process.stdout.write(`${s.drill ? '*' : ' '} ${s.name.padEnd(width)}  ${s.invariants.join(' ').padEnd(12)}  ${s.title}\n`);
      }
      process.stdout.write(
        `\n${list.length} scenarios; * = the drills every workflow must pass. \`jobproof scenarios NAME\` prints one.\n`,
      );
    });
}
