import type pg from 'pg';
import type { SqlMigration } from '../../lib/sqlite-migrations.js';
import { migratePg } from '../store/pg-migrate.js';
import { inTx, openPool } from '../store/pg-pool.js';
import { firstTaskRow, TaskStoreBase, type Mutation, type TaskStore } from './store-base.js';
import type { HistoryInput, NewTaskOpRow, TaskHistoryEntry, TaskOpRow, TaskOpState } from './types.js';

/**
 * The task store on PostgreSQL: same layout as SQLite (the record as one JSONB column), history append-only by
 * trigger, each change under the row's lock. Tables are prefixed `task_` and live in the state's schema beside the
 * operation store's, with their own version row (`task_schema_version`), so each store migrates on its own.
 */
const BASELINE = `
CREATE TABLE task_ops (
  task_op_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  row JSONB NOT NULL,
  created BIGSERIAL
);
CREATE UNIQUE INDEX task_ops_create_key ON task_ops ((row->>'create_key'));
CREATE TABLE task_history (
  task_op_id TEXT NOT NULL REFERENCES task_ops(task_op_id),
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  cause TEXT NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY (task_op_id, seq)
);
CREATE FUNCTION task_refuse_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'JP001';
END $$;
CREATE TRIGGER task_history_append_only BEFORE UPDATE OR DELETE ON task_history FOR EACH ROW EXECUTE FUNCTION task_refuse_append_only();
CREATE TRIGGER task_history_no_truncate BEFORE TRUNCATE ON task_history FOR EACH STATEMENT EXECUTE FUNCTION task_refuse_append_only();
`;

export const PG_TASK_MIGRATIONS: readonly SqlMigration[] = [{ version: 1, name: 'baseline: task_ops, task_history', sql: BASELINE }];

export class PgTaskStore extends TaskStoreBase implements TaskStore {
  readonly pool: pg.Pool;
  private ready: Promise<void> | null = null;

  constructor(
    url: string,
    readonly schema: string,
  ) {
    super();
    this.pool = openPool(url, schema, 2);
  }

  private async db(): Promise<pg.Pool> {
    this.ready ??= migratePg(this.pool, this.schema, PG_TASK_MIGRATIONS, 'task_schema_version').catch((err) => {
      this.ready = null;
      throw err;
    });
    await this.ready;
    return this.pool;
  }

  private static async appendHistory(c: pg.PoolClient, id: string, from: TaskOpState | null, h: HistoryInput): Promise<void> {
    await c.query(
      `INSERT INTO task_history (task_op_id, seq, at, from_state, to_state, cause, evidence)
       SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5, $6 FROM task_history WHERE task_op_id = $1`,
      [id, h.at, from, h.to, h.cause, JSON.stringify(h.evidence ?? {})],
    );
  }

  async insert(fresh: NewTaskOpRow, evidence: Record<string, unknown>): Promise<'inserted' | 'exists'> {
    const { row, first } = firstTaskRow(fresh, evidence);
    return inTx(await this.db(), async (c) => {
      const r = await c.query('INSERT INTO task_ops (task_op_id, state, row) VALUES ($1, $2, $3) ON CONFLICT (task_op_id) DO NOTHING', [
        row.task_op_id,
        row.state,
        JSON.stringify(row),
      ]);
      if (r.rowCount === 0) return 'exists';
      await PgTaskStore.appendHistory(c, row.task_op_id, null, first);
      return 'inserted';
    });
  }

  async get(id: string): Promise<TaskOpRow | undefined> {
    const r = await (await this.db()).query<{ row: TaskOpRow }>('SELECT row FROM task_ops WHERE task_op_id = $1', [id]);
    return r.rows[0]?.row;
  }

  async list(): Promise<TaskOpRow[]> {
    return (await (await this.db()).query<{ row: TaskOpRow }>('SELECT row FROM task_ops ORDER BY created')).rows.map((r) => r.row);
  }

  async history(id: string): Promise<TaskHistoryEntry[]> {
    const r = await (await this.db()).query<{
      task_op_id: string;
      seq: number;
      at: string;
      from_state: string | null;
      to_state: string;
      cause: string;
      evidence: string;
    }>('SELECT * FROM task_history WHERE task_op_id = $1 ORDER BY seq', [id]);
    return r.rows.map((x) => ({
      task_op_id: x.task_op_id,
      seq: x.seq,
      at: x.at,
      from: x.from_state as TaskOpState | null,
      to: x.to_state as TaskOpState,
      cause: x.cause,
      evidence: JSON.parse(x.evidence),
    }));
  }

  protected async mutate<T>(id: string, fn: (cur: TaskOpRow | undefined) => Mutation<T>): Promise<T> {
    return inTx(await this.db(), async (c) => {
      const cur = (await c.query<{ row: TaskOpRow }>('SELECT row FROM task_ops WHERE task_op_id = $1 FOR UPDATE', [id])).rows[0]?.row;
      const m = fn(cur);
      if (m.next)
        await c.query('UPDATE task_ops SET state = $1, row = $2 WHERE task_op_id = $3', [m.next.state, JSON.stringify(m.next), id]);
      if (m.line) await PgTaskStore.appendHistory(c, id, cur!.state, m.line);
      return m.out;
    });
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
