import type pg from 'pg';
import { pendingMigrations, type SqlMigration } from '../../lib/sqlite-migrations.js';
import { inTx, quoteIdent } from './pg-pool.js';

/**
 * Bring one schema to the latest version: the same ordered list and the same refusal of a newer store as SQLite
 * (src/lib/sqlite-migrations.ts), with the version in a one-row table (`schema_version` for operations, `task_schema_version` for tasks). An advisory lock per schema makes three workers starting
 * at once apply each step once; all pending steps and the new version commit together (PostgreSQL DDL is
 * transactional), so a crash mid-migration leaves the previous version intact.
 */
export async function migratePg(pool: pg.Pool, schema: string, list: readonly SqlMigration[], table = 'schema_version'): Promise<void> {
  await inTx(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await c.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    await c.query(`CREATE TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`);
    const r = await c.query<{ version: number }>(`SELECT version FROM ${table} WHERE id = 1`);
    const current = r.rows[0]?.version ?? 0;
    const steps = pendingMigrations(`PostgreSQL schema ${schema} (${table})`, current, list);
    for (const m of steps) await c.query(m.sql);
    if (steps.length) {
      await c.query(`INSERT INTO ${table} (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = excluded.version`, [
        steps[steps.length - 1]!.version,
      ]);
    }
  });
}
