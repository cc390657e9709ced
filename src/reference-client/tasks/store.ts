import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrateSqlite, refuseNewerSqlite, type Migration } from '../../lib/sqlite-migrations.js';
import { firstTaskRow, TaskStoreBase, type Mutation, type TaskStore } from './store-base.js';
import type { HistoryInput, NewTaskOpRow, TaskHistoryEntry, TaskOpRow, TaskOpState } from './types.js';

export type { HistoryInput } from './types.js';

/** The schema release 0.1.0 created without a version number; `IF NOT EXISTS` lets version 1 adopt such a file. */
const BASELINE = `
CREATE TABLE IF NOT EXISTS task_ops (
  task_op_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  row TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS task_ops_create_key ON task_ops(json_extract(row, '$.create_key'));
CREATE TABLE IF NOT EXISTS task_history (
  task_op_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  cause TEXT NOT NULL,
  evidence TEXT NOT NULL,
  PRIMARY KEY (task_op_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS task_history_no_update BEFORE UPDATE ON task_history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS task_history_no_delete BEFORE DELETE ON task_history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;
`;

export const SQLITE_TASK_MIGRATIONS: readonly Migration[] = [{ version: 1, name: 'baseline (release 0.1.0)', sql: BASELINE }];

export { nextTaskRow, type TaskStore } from './store-base.js';

/**
 * `${state}/tasks.db`, WAL, each change (row + its history entry) one transaction. The row is kept as one JSON
 * column: the workflow reads and writes whole records, and nothing queries inside them except the create key.
 */
export class SqliteTaskStore extends TaskStoreBase implements TaskStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    super();
    this.db = new Database(file);
    refuseNewerSqlite(this.db, file, SQLITE_TASK_MIGRATIONS);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.pragma('synchronous = FULL');
    migrateSqlite(this.db, file, SQLITE_TASK_MIGRATIONS);
  }

  static open(stateDir: string): SqliteTaskStore {
    mkdirSync(stateDir, { recursive: true });
    return new SqliteTaskStore(join(stateDir, 'tasks.db'));
  }

  private appendHistory(id: string, from: TaskOpState | null, h: HistoryInput): void {
    const last = this.db.prepare<[string], { seq: number }>('SELECT MAX(seq) AS seq FROM task_history WHERE task_op_id = ?').get(id);
    this.db
      .prepare('INSERT INTO task_history (task_op_id, seq, at, from_state, to_state, cause, evidence) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, (last?.seq ?? 0) + 1, h.at, from, h.to, h.cause, JSON.stringify(h.evidence ?? {}));
  }

  private getSync(id: string): TaskOpRow | undefined {
    const r = this.db.prepare<[string], { row: string }>('SELECT row FROM task_ops WHERE task_op_id = ?').get(id);
    return r ? (JSON.parse(r.row) as TaskOpRow) : undefined;
  }

  async insert(fresh: NewTaskOpRow, evidence: Record<string, unknown>): Promise<'inserted' | 'exists'> {
    const { row, first } = firstTaskRow(fresh, evidence);
    return this.db.transaction(() => {
      if (this.getSync(row.task_op_id)) return 'exists' as const;
      this.db.prepare('INSERT INTO task_ops (task_op_id, state, row) VALUES (?, ?, ?)').run(row.task_op_id, row.state, JSON.stringify(row));
      this.appendHistory(row.task_op_id, null, first);
      return 'inserted' as const;
    })();
  }

  async get(id: string): Promise<TaskOpRow | undefined> {
    return this.getSync(id);
  }

  async list(): Promise<TaskOpRow[]> {
    return this.db
      .prepare<[], { row: string }>('SELECT row FROM task_ops ORDER BY rowid')
      .all()
      .map((r) => JSON.parse(r.row) as TaskOpRow);
  }

  async history(id: string): Promise<TaskHistoryEntry[]> {
    return this.db
      .prepare<
        [string],
        { task_op_id: string; seq: number; at: string; from_state: string | null; to_state: string; cause: string; evidence: string }
      >('SELECT * FROM task_history WHERE task_op_id = ? ORDER BY seq')
      .all(id)
      .map((r) => ({
        task_op_id: r.task_op_id,
        seq: r.seq,
        at: r.at,
        from: r.from_state as TaskOpState | null,
        to: r.to_state as TaskOpState,
        cause: r.cause,
        evidence: JSON.parse(r.evidence),
      }));
  }

  protected async mutate<T>(id: string, fn: (cur: TaskOpRow | undefined) => Mutation<T>): Promise<T> {
    return this.db
      .transaction(() => {
        const cur = this.getSync(id);
        const m = fn(cur);
        if (m.next)
          this.db.prepare('UPDATE task_ops SET state = ?, row = ? WHERE task_op_id = ?').run(m.next.state, JSON.stringify(m.next), id);
        if (m.line) this.appendHistory(id, cur!.state, m.line);
        return m.out;
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
