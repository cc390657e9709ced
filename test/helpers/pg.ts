import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

/** The test server's URL (see test/support/pg-global-setup.ts); null when the run was told to skip PostgreSQL. */
export function pgUrl(): string | null {
  const url = inject('pgUrl');
  return url === 'skip' ? null : url;
}

/** A schema name no other test (or parallel test file) uses. */
export const uniqueSchema = (prefix = 't') => `jp_${prefix}_${randomBytes(6).toString('hex')}`;

export async function dropSchema(url: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
}
