import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatProblem, parseProfileText, type ProfileProblem } from './profile-check.js';
import type { Profile } from './profiles.js';

/**
 * The built-in profiles shipped in the package (`profiles/*.json`): the nearest `profiles/` above this file — two
 * levels up in src/ and dist/, three from the client bundle's chunks (dist/cli/client-chunks/).
 */
export const BUILTIN_PROFILES_DIR = ((): string => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++, dir = dirname(dir)) if (existsSync(join(dir, 'profiles', 'native.json'))) return join(dir, 'profiles');
  return join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'profiles');
})();

export function builtinProfileNames(): string[] {
  if (!existsSync(BUILTIN_PROFILES_DIR)) return [];
  return readdirSync(BUILTIN_PROFILES_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** A built-in profile's file, or the argument itself when it names no built-in (a path). */
export function profilePath(fileOrName: string): string {
  return builtinProfileNames().includes(fileOrName) ? join(BUILTIN_PROFILES_DIR, `${fileOrName}.json`) : fileOrName;
}

export type ProfileLoad = { ok: true; profile: Profile; file: string } | { ok: false; file: string; problems: ProfileProblem[] };

/** Read and check a profile by built-in name or file path; a file that cannot be read is one problem at 1:1. */
export function loadProfile(fileOrName: string): ProfileLoad {
  const file = profilePath(fileOrName);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const known = builtinProfileNames().join(', ');
    return {
      ok: false,
      file,
      problems: [
        {
          line: 1,
          col: 1,
          path: '(file)',
          message: `cannot read: ${(err as Error).message}`,
          fix: `give a profile file, or one of the built-in names: ${known}`,
        },
      ],
    };
  }
  if (/\.ya?ml$/i.test(file))
    return {
      ok: false,
      file,
      problems: [
        {
          line: 1,
          col: 1,
          path: '(file)',
          message: 'YAML profiles are not read yet',
          fix: 'write the profile as JSON (the same fields); YAML needs the `yaml` package',
        },
      ],
    };
  const r = parseProfileText(text);
  return r.ok ? { ok: true, profile: r.profile, file } : { ok: false, file, problems: r.problems };
}

/** Every problem of a failed load, one per line, `file:line:col path: message` and how to mend it. */
export function describeLoad(l: Extract<ProfileLoad, { ok: false }>): string {
  return l.problems.map((p) => formatProblem(l.file, p)).join('\n');
}
