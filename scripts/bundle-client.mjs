// The reference client's process face as CommonJS built by rolldown (docs/decisions/024-bundled-client-start.md):
// certify starts the client ~90 times per catalog, and a start from a bundle skips resolving and compiling ~150 ESM
// modules. Entry dist/cli/client.cjs; what a verb loads lazily (the client and its worker, zod, commander, the task
// client) goes to chunks in dist/cli/client-chunks/, required when first used, so `show` compiles only what it runs.
// Run by `npm run build` after tsc, from the compiled dist/cli/client-main.js.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { build } from 'rolldown';

/**
 * better-sqlite3's JavaScript goes into the bundle too (its 13 files, resolved and compiled one by one, cost ~17 ms
 * of CPU a start); its native addon stays where npm put it. The package finds the addon through `bindings`, which
 * searches from its caller's file — inside a bundle, ours — so that one call is pointed at the addon by name. A
 * better-sqlite3 that no longer makes that call fails this build, not a client run.
 */
const betterSqliteAddon = {
  name: 'better-sqlite3-addon',
  transform(code, id) {
    if (!/better-sqlite3[\\/]lib[\\/]database\.js$/.test(id)) return null;
    const call = "require('bindings')('better_sqlite3.node')";
    if (!code.includes(call)) throw new Error(`${id} no longer calls ${call}: update scripts/bundle-client.mjs`);
    return code.replace(call, "require(require.resolve('better-sqlite3/build/Release/better_sqlite3.node'))");
  },
};

const out = await build({
  input: { client: 'dist/cli/client-main.js' },
  platform: 'node',
  // pg is required only by a postgres:// store (store/pg-pool.ts), from node_modules as any optional package.
  external: ['pg'],
  plugins: [betterSqliteAddon],
  output: {
    dir: 'dist/cli',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'client-chunks/[name]-[hash].cjs',
  },
  logLevel: 'warn',
});

/**
 * The bundle carries copies of other packages' code (zod, commander, better-sqlite3's JavaScript, …), and their
 * licences ask that each copy keep its notice. Every package a chunk took a module from is listed, with its licence
 * text, in dist/cli/client-licenses.txt, which the entry's banner names; a bundled package without a licence file
 * fails the build.
 */
function packageRoot(id) {
  const at = id.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return null;
  const rest = id.slice(at + 14).split(sep);
  return join(id.slice(0, at + 14), ...rest.slice(0, rest[0].startsWith('@') ? 2 : 1));
}
const MIT = (holder) =>
  `Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files (the "Software"), to deal in the Software without restriction, including without limitation the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;
const roots = new Set();
for (const chunk of out.output)
  for (const id of chunk.moduleIds ?? []) {
    const root = packageRoot(id.replace(/^\0/, ''));
    if (root && existsSync(join(root, 'package.json'))) roots.add(root);
  }
const notices = [...roots].sort().map((root) => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const file = readdirSync(root).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const head = `${pkg.name}@${pkg.version} (${pkg.license ?? 'no licence declared'})\n${'-'.repeat(60)}\n`;
  if (file) return `${head}${readFileSync(join(root, file), 'utf8').trim()}\n`;
  // A package may declare MIT in package.json and ship no licence file (standardwebhooks 1.1.1 does): the notice is
  // then the MIT text with the copyright of its declared author.
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name;
  if (pkg.license !== 'MIT' || !author)
    throw new Error(`${pkg.name} is bundled into dist/cli/client.cjs but ships no licence file and is not MIT with an author`);
  return `${head}(the package ships no licence file; its package.json declares MIT, author ${author}, ${pkg.repository?.url ?? pkg.repository ?? ''})\n\n${MIT(author)}\n`;
});
writeFileSync(
  join('dist', 'cli', 'client-licenses.txt'),
  `Third-party code bundled into dist/cli/client.cjs and dist/cli/client-chunks/ (jobproof itself: MIT, see package.json).\n\n${notices.join('\n')}`,
);
const entry = join('dist', 'cli', 'client.cjs');
writeFileSync(
  entry,
  readFileSync(entry, 'utf8').replace(
    /^(#!.*\n)?/,
    (shebang) => `${shebang}/*! Bundles third-party code: see client-licenses.txt beside this file. */\n`,
  ),
);
