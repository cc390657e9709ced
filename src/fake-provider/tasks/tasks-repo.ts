import type { Db } from '../store/database.js';
import type { TaskRow } from './model.js';

/** Tasks stored as JSON documents, with the columns the provider queries on kept alongside. */
export class TasksRepo {
  /** Counts writes, so a cached earliest due time is known to be current (TaskService.tick). */
  writes = 0;
  private readonly getStmt;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly dueStmt;
  private readonly nextDueStmt;
  private readonly byObjectStmt;
  private readonly idsStmt;

  private readonly resetStmt;

  constructor(db: Db) {
    this.resetStmt = db.prepare('DELETE FROM tasks');
    this.getStmt = db.prepare<[string], { doc: string }>('SELECT doc FROM tasks WHERE task_id = ?');
    this.insertStmt = db.prepare('INSERT INTO tasks (task_id, tenant, object_ref, state, next_step_at, doc) VALUES (?, ?, ?, ?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE tasks SET state = ?, next_step_at = ?, doc = ? WHERE task_id = ?');
    this.dueStmt = db.prepare<[number], { task_id: string }>(
      'SELECT task_id FROM tasks WHERE next_step_at IS NOT NULL AND next_step_at <= ? ORDER BY next_step_at, seq',
    );
    this.idsStmt = db.prepare<[], { task_id: string }>('SELECT task_id FROM tasks ORDER BY seq');
    this.nextDueStmt = db.prepare<[], { at: number | null }>('SELECT MIN(next_step_at) AS at FROM tasks WHERE next_step_at IS NOT NULL');
    this.byObjectStmt = db.prepare<[string, string], { task_id: string }>(
      `SELECT task_id FROM tasks WHERE tenant = ? AND object_ref = ? AND state IN ('awaiting_review', 'approved') ORDER BY seq`,
    );
  }

  get(taskId: string): TaskRow | undefined {
    const r = this.getStmt.get(taskId);
    return r ? (JSON.parse(r.doc) as TaskRow) : undefined;
  }

  getForTenant(taskId: string, tenant: string): TaskRow | undefined {
    const t = this.get(taskId);
    return t && t.tenant === tenant ? t : undefined;
  }

  insert(t: TaskRow): void {
    this.writes++;
    this.insertStmt.run(t.task_id, t.tenant, t.object_ref, t.state, t.next_step_at, JSON.stringify(t));
  }

  update(t: TaskRow): void {
    this.writes++;
    this.updateStmt.run(t.state, t.next_step_at, JSON.stringify(t), t.task_id);
  }

  dueIds(now: number): string[] {
    return this.dueStmt.all(now).map((r) => r.task_id);
  }

  nextDueAt(): number | null {
    return this.nextDueStmt.get()?.at ?? null;
  }

  /** Tasks of an object whose proposal must follow the object's version (awaiting review or approved). */
  openOnObject(tenant: string, ref: string): string[] {
    return this.byObjectStmt.all(tenant, ref).map((r) => r.task_id);
  }

  /** Every task id, oldest first (the control API's list). */
  allIds(): string[] {
    return this.idsStmt.all().map((r) => r.task_id);
  }

  /** Forget every row (the provider's reset). */
  reset(): void {
    this.resetStmt.run();
  }
}
