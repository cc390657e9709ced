import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isUsageError } from '../../../src/reference-client/cli-env.js';
import { PgDriverMissingError, requirePg } from '../../../src/reference-client/store/pg-pool.js';

it('pg not installed: a usage error that says to install it, not a raw MODULE_NOT_FOUND', () => {
  // Node's own require from a directory with no node_modules up its tree: pg truly cannot be found there.
  const dir = mkdtempSync(join(tmpdir(), 'jp-no-pg-'));
  try {
    const load = createRequire(join(dir, 'x.js'));
    expect(() => load('pg')).toThrow(/Cannot find module 'pg'/);
    let thrown: unknown;
    try {
      requirePg(load);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PgDriverMissingError);
    expect((thrown as Error).message).toMatch(/npm install pg/);
    expect(isUsageError(thrown)).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('any other failure while loading pg is left as it is', () => {
  const broken = Object.assign(new Error("Cannot find module 'pg-protocol'"), { code: 'MODULE_NOT_FOUND' });
  expect(() =>
    requirePg(() => {
      throw broken;
    }),
  ).toThrow(broken);
  expect(requirePg(createRequire(import.meta.url)).Pool).toBeTypeOf('function');
});
