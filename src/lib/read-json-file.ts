import { readFileSync } from 'node:fs';

/** Read a JSON file for a CLI option, with an error that names the option and the file. */
export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${what} file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${what} file ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

/** An error whose message is meant for the person at the terminal: printed without a stack, exit 2. */
export class CliError extends Error {}
